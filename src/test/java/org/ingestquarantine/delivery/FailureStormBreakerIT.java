package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.db.DatabaseUnavailableException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the failure-storm breaker of one consumer pauses a source whose deliveries storm with a fingerprint new to
 * it, that a second consumer sharing the database sees the pause and hands the source's deliveries back (or holds
 * them where a hand-back comes back first) until it is resumed, and that neither a known fingerprint nor failures
 * that are not the document's own pause anything.
 */
class FailureStormBreakerIT extends PostgresTestBase {

    /** 10 deliveries, judged from 6 on, 50% failing with one fingerprint; the pauses read every 100 ms. */
    private static final StormThresholds SMALL = new StormThresholds(10, 6, 50, Duration.ofDays(30),
            Duration.ofMillis(100), Duration.ofSeconds(60));
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    private final CamelContext camel = new DefaultCamelContext();
    private final ClassifyFailure classification = new ClassifyFailure(ErrorTaxonomy.standard());
    private final List<FailureStorm> started = new ArrayList<>();
    private SourcePauses pauses;

    @BeforeEach
    void emptyPauses() throws SQLException {
        new JdbcTemplate(dataSource()).update("TRUNCATE storm_pause");
        pauses = new SourcePauses(dataSource(), Clock.systemUTC());
    }

    @AfterEach
    void stop() {
        started.forEach(FailureStorm::close);
    }

    @Test
    void shouldPauseTheSourceInASecondConsumerSharingTheDatabaseUntilResumed() {
        Consumer a = consumer("host/1", false, new InFlightAttempts());
        Consumer b = consumer("host/2", false, new InFlightAttempts());
        PermanentInputException notPdf = notPdf();
        for (int i = 0; i < 5; i++) {
            a.storm.failed(failed("docs", "d" + i, notPdf));
            assertThat(a.storm.pauseOf("docs")).as("fewer than storm.min-deliveries").isEmpty();
        }

        a.storm.failed(failed("docs", "d5", notPdf));

        assertThat(a.storm.pauseOf("docs")).hasValueSatisfying(p -> {
            assertThat(p.fingerprint()).isEqualTo(ErrorFingerprint.of(notPdf));
            assertThat(p.pausedBy()).isEqualTo("host/1");
            assertThat(p.failed()).isEqualTo(6);
        });
        assertThat(a.paused("docs")).isEqualTo(1.0);
        await().atMost(WAIT).until(() -> b.storm.pauseOf("docs").isPresent());
        Exchange delivery = admitted("docs", "d6");
        assertThatThrownBy(() -> b.storm.admit(delivery)).isInstanceOf(SourcePausedException.class);
        assertThat(delivery.getProperty(PipelineKeys.BACKOFF, Duration.class)).as("storm.hand-back-ms")
                .isEqualTo(Duration.ofSeconds(60));
        assertThat(b.paused("docs")).isEqualTo(1.0);
        assertThat(b.heldBack("docs")).isEqualTo(1.0);
        b.storm.admit(admitted("wiki", "w1")); // another source goes on

        pauses.resume("docs", "operator");

        await().atMost(WAIT).until(() -> a.storm.pauseOf("docs").isEmpty() && b.storm.pauseOf("docs").isEmpty());
        a.storm.admit(admitted("docs", "d7"));
        b.storm.admit(admitted("docs", "d8"));
        assertThat(b.paused("docs")).isEqualTo(0.0);
        a.storm.failed(failed("docs", "d9", notPdf));
        assertThat(a.storm.pauseOf("docs")).as("a resumed source is judged from an empty window").isEmpty();
    }

    @Test
    void shouldHoldADeliveryWhereAHandBackComesBackFirstUntilResumedAndLetItGoOnAStop() throws Exception {
        InFlightAttempts inFlight = new InFlightAttempts();
        Consumer kafka = consumer("host/1", true, inFlight);
        pauses.trip(new Storm("docs", "f", ErrorClass.PERMANENT_INPUT, "not_pdf", 6, 6, Instant.now()), "host/9",
                Duration.ofDays(30));
        await().atMost(WAIT).until(() -> kafka.storm.pauseOf("docs").isPresent());

        CompletableFuture<Void> held = CompletableFuture.runAsync(() -> kafka.storm.admit(admitted("docs", "d1")));
        Thread.sleep(500);
        assertThat(held).as("held on its consumer thread while paused").isNotDone();
        pauses.resume("docs", "operator");
        held.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);

        pauses.trip(new Storm("docs", "f2", ErrorClass.PERMANENT_INPUT, "not_pdf", 6, 6, Instant.now()), "host/9",
                Duration.ofDays(30));
        await().atMost(WAIT).until(() -> kafka.storm.pauseOf("docs").isPresent());
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(() -> kafka.storm.admit(admitted("docs", "d2")));
        Thread.sleep(300);
        inFlight.stopAdmitting();
        assertThatThrownBy(() -> stopped.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS))
                .hasCauseInstanceOf(ShutdownException.class);
    }

    @Test
    void shouldNotPauseForAFingerprintTheSourcesRecordsCarriedBefore() {
        Consumer a = consumer("host/1", false, new InFlightAttempts());
        PermanentInputException notPdf = notPdf();
        new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")),
                Clock.fixed(Instant.now().minus(Duration.ofDays(1)), ZoneOffset.UTC))
                .record(FailureEvidence.builder("docs", "stray.pdf").errorClass(ErrorClass.PERMANENT_INPUT)
                        .reasonCode("not_pdf").failure(notPdf).build());

        for (int i = 0; i < 20; i++) {
            a.storm.failed(failed("docs", "d" + i, notPdf));
        }

        assertThat(a.storm.pauseOf("docs")).as("the source's usual failure").isEmpty();
        assertThat(pauses.open()).isEmpty();
    }

    @Test
    void shouldNotCountFailuresThatAreNotTheDocumentsOwn() {
        Consumer a = consumer("host/1", false, new InFlightAttempts());
        for (int i = 0; i < 20; i++) {
            a.storm.failed(failed("docs", "d" + i, new DatabaseUnavailableException("PostgreSQL is down", null)));
            a.storm.failed(failed("docs", "s" + i, new ShutdownException("stopping", null)));
            a.storm.failed(failed("docs", "r" + i,
                    new org.apache.camel.component.bean.MethodNotFoundException(Object.class, "pageCont")));
        }
        assertThat(pauses.open()).isEmpty();
    }

    /** One consumer: its breaker, and the meters it shows the pauses in. */
    private record Consumer(FailureStorm storm, SimpleMeterRegistry meters) {
        double paused(String source) {
            return meters.get(PipelineMetrics.STORM_PAUSED).tag("source", source).gauge().value();
        }

        double heldBack(String source) {
            return meters.get(PipelineMetrics.STORM_HELD_BACK).tag("source", source).counter().count();
        }
    }

    private Consumer consumer(String owner, boolean releaseComesBackFirst, InFlightAttempts inFlight) {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        PipelineMetrics metrics = new PipelineMetrics(meters, SourceTags.of(Set.of("docs", "wiki")));
        BrokerAdapter broker = new BrokerAdapter() {
            @Override
            public String deliveryKey(Exchange exchange) {
                return "k";
            }

            @Override
            public int deliveryCount(Exchange exchange) {
                return 1;
            }

            @Override
            public void release(Exchange exchange, Duration delay) {
            }

            @Override
            public boolean releaseComesBackFirst() {
                return releaseComesBackFirst;
            }
        };
        FailureStorm storm = FailureStorm.start(SMALL, new SourcePauses(dataSource(), Clock.systemUTC()),
                new FailureStorm.Consumer(broker, inFlight, new FailureDisposition(ShippedProperties.policies(),
                        classification, inFlight), owner), metrics, Clock.systemUTC());
        started.add(storm);
        return new Consumer(storm, meters);
    }

    private Exchange admitted(String source, String docId) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty(PipelineKeys.MESSAGE, new IngestMessage(source, docId,
                URI.create("file:///srv/" + source + "/" + docId), null, null, null));
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, 1);
        return exchange;
    }

    private Exchange failed(String source, String docId, Exception failure) {
        Exchange exchange = admitted(source, docId);
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
        classification.of(exchange);
        return exchange;
    }

    /** @return one failure, thrown from one place: every document failing the same way */
    private static PermanentInputException notPdf() {
        try {
            throw new PermanentInputException("not_pdf", "an HTML error page, not a PDF");
        } catch (PermanentInputException e) {
            return e;
        }
    }
}
