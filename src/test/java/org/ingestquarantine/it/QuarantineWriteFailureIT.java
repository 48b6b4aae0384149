package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.QuarantineWriteOutage;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a database outage never acknowledges a message without its committed outcome: a failing
 * quarantine write leaves the message on the queue and pauses the consumer, and attempts cut short by
 * outages are not counted as deaths (the batch case runs on every broker: BrokerScenarios).
 */
class QuarantineWriteFailureIT {

    /** Longest wait for anything the pipeline does on its own. */
    private static final Duration WAIT = Duration.ofSeconds(240);
    /**
     * The consumer's visibility timeout in these tests, far beyond {@link #WAIT}: a message that only comes
     * back because its visibility ran out (instead of being released) makes the test time out.
     */
    private static final int VISIBILITY_SECONDS = 900;
    /** How long the consumer may take to notice the outage and pause; far below the consumer's 120 s visibility. */
    private static final Duration PAUSE_WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path data;

    @Test
    void shouldLeaveTheMessageOnTheQueueAndPauseWhenTheQuarantineWriteFails() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, longVisibility())) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            // the first time the quarantine route runs, the database goes away under it
            AtomicInteger quarantineRuns = QuarantineWriteOutage.stopDatabaseAtFirstWrites(pipeline, 1);

            String key = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));

            await().atMost(WAIT).until(() -> quarantineRuns.get() >= 1);
            await("consumer paused").atMost(PAUSE_WITHIN).until(breaker::isOpen);
            assertThat(postgres.isRunning()).isFalse();
            assertThat(pipeline.outcomeOf(key)).as("outcome without a committed record").isNull();
            assertThat(pipeline.depth("ingest")).as("the unacknowledged message is still on the queue").isEqualTo(1);
            // paused, not burning deliveries, for as long as the database stays down: at most one more
            // delivery, by the other poller's receive already in flight when the consumer paused
            await("paused while the database is down").during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20))
                    .until(() -> breaker.isOpen() && pipeline.deliveries(key) <= 2);
            int deliveriesWhileDown = pipeline.deliveries(key);

            postgres.start();

            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            // not acknowledged after the failed write, so delivered again: either during the outage (then held
            // at the consumer's entrance until the database answered) or after it
            assertThat(pipeline.deliveries(key)).as("the message came back after the failed write")
                    .isGreaterThanOrEqualTo(2).isGreaterThanOrEqualTo(deliveriesWhileDown);
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
            assertThat(record.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(record.reasonCode()).isEqualTo("not_pdf");
            assertThat(record.quarantineWrites()).isEqualTo(1);
            List<QuarantineAttempt> history = pipeline.store().attempts(record.dlqId());
            assertThat(history).hasSize(1);
            assertThat(history.get(0).deliveryKey()).isEqualTo(key);
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).isEqualTo(1);
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open, i.e. counted as deaths").isZero();
            assertThat(pipeline.settlements()).as("settled exactly once").isEqualTo(1);
            await("acknowledged once recorded").atMost(WAIT).until(() -> pipeline.depth("ingest") == 0);
            assertThat(pipeline.depth("ingest-dlq")).isZero();
        }
    }

    @Test
    void shouldNotCountAttemptsCutShortByOutagesAsConsumerDeaths() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, longVisibility())) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            // two outages in a row, each under a quarantine write: the consumer never dies
            AtomicInteger quarantineRuns = QuarantineWriteOutage.stopDatabaseAtFirstWrites(pipeline, 2);

            String key = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));
            for (int outage = 1; outage <= 2; outage++) {
                int n = outage;
                await("outage " + n).atMost(WAIT)
                        .until(() -> quarantineRuns.get() >= n && breaker.isOpen() && !postgres.isRunning());
                postgres.start();
            }

            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
            assertThat(record.errorClass()).as("class of a not-PDF whose consumer never died")
                    .isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(record.reasonCode()).isEqualTo("not_pdf");
            assertThat(record.quarantineWrites()).isEqualTo(1);
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open, i.e. counted as deaths").isZero();
        }
    }

    /** @return the property that gives the embedded consumer {@link #VISIBILITY_SECONDS} of visibility timeout */
    private static Map<String, String> longVisibility() {
        return Map.of("sqs.visibility-timeout-s", Integer.toString(VISIBILITY_SECONDS));
    }

}
