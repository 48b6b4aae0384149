package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.ErrorClass;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Ensures routes/failure.camel.yaml holds the consumer when the database or the embedding service is the cause,
 * and releases or quarantines by the disposition.
 */
class FailureRouteTest extends RouteTestBase {

    @Test
    void shouldHoldTheConsumerWhenTheDatabaseIsUnreachable() {
        stages.failAt("index", new DatabaseAccessException("index write failed", new SQLException("gone", "08006")));
        assertThat(deliver(1).isFailed()).isTrue();
        assertThat(breaker.isOpen()).isTrue();
        assertThat(outcomes.closed).containsExactly("k1=released");
    }

    @Test
    void shouldNotHoldTheConsumerForAFailureOfTheDocument() {
        stages.failAt("parse", RouteTestSupport.failure(org.ingestquarantine.failure.ErrorClass.AMBIGUOUS_PARSE));
        deliver(1);
        assertThat(breaker.isOpen()).isFalse();
    }

    @Test
    void shouldHoldTheConsumerAndReleaseEvenTheLastDeliveryWhileTheEmbeddingServiceIsDown() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(ConsumerCircuitBreaker.class);
        logs.start();
        logger.addAppender(logs);
        try {
            embeddingService.up.set(false);
            stages.failAt("embed", RouteDoubles.EmbeddingService.refused());
            int last = RouteDoubles.POLICIES.forClass(ErrorClass.TRANSIENT).maxDeliveries();

            Exchange failed = deliver(last);

            assertThat(failed.isFailed()).as("not acknowledged").isTrue();
            assertThat(outcomes.closed).as("released on its last delivery, not quarantined").containsExactly("k1=released");
            assertThat(recorder.recorded).isEmpty();
            assertThat(broker.releases).containsKey("k1");
            assertThat(breaker.isOpen()).isTrue();
            // the next delivery waits at the consumer's entrance, before any work, while the probe fails
            stages.failAt(null, null);
            stages.marks.clear();
            CompletableFuture<Exchange> next = CompletableFuture.supplyAsync(() -> RouteTestSupport.deliver(context,
                    RouteTestSupport.message("e.pdf"), "k2", 1));
            Thread.sleep(300);
            assertThat(next).as("held while the service is down").isNotDone();
            assertThat(stages.marks).as("no stage ran").isEmpty();

            embeddingService.up.set(true);

            assertThat(next.get(5, TimeUnit.SECONDS).isFailed()).isFalse();
            assertThat(outcomes.closed).containsExactly("k1=released", "k2=indexed");
            assertThat(breaker.isOpen()).isFalse();
            assertThat(logs.list).as("one line when it opens, one when it closes").hasSize(2);
            assertThat(logs.list.get(0).getLevel()).isEqualTo(Level.WARN);
            assertThat(logs.list.get(0).getFormattedMessage()).contains("embed.openai.url").contains("holding the consumer");
            assertThat(logs.list.get(1).getLevel()).isEqualTo(Level.INFO);
            assertThat(logs.list.get(1).getFormattedMessage()).contains("embed.openai.url").contains("answers again");
        } finally {
            logger.detachAppender(logs);
        }
    }

    @Test
    void shouldQuarantineAnOrdinaryTransientFailureOnItsLastDelivery() {
        stages.failAt("embed", new org.ingestquarantine.failure.TransientException("embed_http_503", "busy", null));
        deliver(RouteDoubles.POLICIES.forClass(ErrorClass.TRANSIENT).maxDeliveries());
        assertThat(outcomes.closed).containsExactly("k1=quarantined");
        assertThat(breaker.isOpen()).isFalse();
    }
}
