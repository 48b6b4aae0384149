package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.scenarios.KafkaFixture;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.QuarantineWriteOutage;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures that on Kafka, where the attempt journal is the delivery counter, a quarantine record whose write the
 * database's outage refused costs the document no delivery: the record is read again once the database answers and
 * recorded as its first delivery, one attempt (the broker scenarios' database outage met this by chance: a
 * permanent_input document recorded with 2 attempts).
 */
class KafkaQuarantineWriteFailureIT {

    private static final Duration WAIT = Duration.ofSeconds(240);

    @TempDir
    Path data;

    @Test
    void shouldRecordOneAttemptWhenTheDatabaseGoesAwayUnderTheQuarantineWrite() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, new KafkaFixture(), Map.of())) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            // the first time the quarantine route runs, the database goes away under it
            AtomicInteger quarantineRuns = QuarantineWriteOutage.stopDatabaseAtFirstWrites(pipeline, 1);

            String key = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));

            await("the database gone under the write").atMost(WAIT)
                    .until(() -> quarantineRuns.get() >= 1 && breaker.isOpen());
            Thread.sleep(Duration.ofSeconds(3).toMillis());
            assertThat(pipeline.outcomeOf(key)).as("outcome without a committed record").isNull();
            postgres.start();

            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            assertThat(quarantineRuns.get()).as("the record written again after the outage").isGreaterThanOrEqualTo(2);
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
            assertThat(record.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(record.attempts()).as("deliveries charged to the document").isEqualTo(1);
            assertThat(pipeline.store().attempts(record.dlqId())).extracting(QuarantineAttempt::deliveryCount)
                    .as("its history").containsExactly(1);
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open, i.e. counted as deaths").isZero();
            assertThat(pipeline.settlements()).as("settled exactly once").isEqualTo(1);
        }
    }
}
