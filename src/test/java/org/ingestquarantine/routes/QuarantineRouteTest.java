package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.apache.camel.builder.NotifyBuilder;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicy;
import org.junit.jupiter.api.Test;

/**
 * Ensures routes/quarantine.camel.yaml acknowledges only after the record is written: a failed write is
 * released with the transient back-off, holds the consumer, and leaves the message unacknowledged.
 */
class QuarantineRouteTest extends RouteTestBase {

    @Test
    void shouldAcknowledgeOnlyAfterTheRecordIsWritten() throws InterruptedException {
        stages.failAt("preflight", RouteTestSupport.failure(ErrorClass.PERMANENT_INPUT));
        recordStatement.expectedMessageCount(1);
        recordStatement.message(0).body().isInstanceOf(java.util.Map.class);
        Exchange done = deliver(1);
        recordStatement.assertIsSatisfied();
        assertThat(recordStatement.getExchanges().get(0).getIn().getBody(java.util.Map.class))
                .as("the broker's dead-letter copy goes in the record's own statement")
                .containsEntry(RouteDoubles.DEAD_LETTER_COPY, true);
        assertThat(done.isFailed()).isFalse();
        assertThat(recorder.recorded).hasSize(1);
        assertThat(outcomes.closed).containsExactly("k1=quarantined");
    }

    @Test
    void shouldNeverAcknowledgeWhenTheRecordStatementFails() {
        stages.failAt("preflight", RouteTestSupport.failure(ErrorClass.PERMANENT_INPUT));
        recordStatement.whenAnyExchangeReceived(e -> {
            throw new java.sql.SQLException("terminating connection due to administrator command", "57P01");
        });

        Exchange done = deliver(1);

        assertThat(done.isFailed()).as("not acknowledged").isTrue();
        assertThat(recorder.recorded).as("nothing counted before a commit").isEmpty();
        assertThat(outcomes.closed).containsExactly("k1=released");
        assertThat(breaker.isOpen()).isTrue();
    }

    @Test
    void shouldNeverAcknowledgeWhenTheRecordCannotBeWritten() {
        stages.failAt("preflight", RouteTestSupport.failure(ErrorClass.PERMANENT_INPUT));
        recorder.failing.set(true);
        NotifyBuilder failedWrite = new NotifyBuilder(context).fromRoute("ingest-consumer").whenFailed(1).create();

        Exchange done = deliver(1);

        assertThat(failedWrite.matches(5, TimeUnit.SECONDS)).isTrue();
        assertThat(done.isFailed()).as("not acknowledged").isTrue();
        assertThat(outcomes.closed).containsExactly("k1=released");
        assertThat(breaker.isOpen()).as("the consumer is held while the store is down").isTrue();
        RedeliveryPolicy transientPolicy = RouteDoubles.POLICIES.forClass(ErrorClass.TRANSIENT);
        assertThat(broker.releases.get("k1").toMillis()).as("the transient back-off")
                .isBetween(Math.round(transientPolicy.initialBackoff().toMillis() * (1 - transientPolicy.jitter())),
                        Math.round(transientPolicy.initialBackoff().toMillis() * (1 + transientPolicy.jitter())));
    }
}
