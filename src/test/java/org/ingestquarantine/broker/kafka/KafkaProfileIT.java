package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.DocumentState;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.scenarios.KafkaFixture;
import org.ingestquarantine.testsupport.CliPublishers;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the kafka profile's own promises on a real KRaft broker: a record produced by the kcat CLI is
 * indexed, a quarantined record is copied to ingest.dlq with string headers and no text, every delivery is
 * journalled before work with the count the guard read, and an attempt that died counts.
 */
class KafkaProfileIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path data;

    @Test
    void shouldIndexARecordProducedWithKcat() throws Exception {
        KafkaFixture kafka = new KafkaFixture();
        try (TestPipeline pipeline = TestPipeline.start(data, kafka, Map.of())) {
            String json = new IngestMessage("cli", "kcat-1.pdf", Corpus.file("c0007.pdf").toAbsolutePath().toUri(),
                    null, null, null).toJson();

            CliPublishers.kcatProduce(kafka.broker().bootstrapServers(), KafkaFixture.TOPIC, "kcat-1.pdf", json);

            DocumentIndex index = pipeline.app().bean("documentIndex", DocumentIndex.class);
            Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> index.state("cli", "kcat-1.pdf").equals(Optional.of(DocumentState.SEARCHABLE)));
            assertThat(pipeline.app().bean("ingestPublisher", IngestPublisher.class).pending()).isZero();
        }
    }

    @Test
    void shouldCopyAQuarantinedRecordToTheDeadLetterTopicWithStringHeaders() throws Exception {
        KafkaFixture kafka = new KafkaFixture(1);
        try (TestPipeline pipeline = TestPipeline.start(data, kafka, Map.of())) {
            IngestMessage message = new IngestMessage("it", "html.pdf", Corpus.file("c0066.pdf").toAbsolutePath().toUri(),
                    null, null, null);
            String key = pipeline.publish(message);
            assertThat(key).isEqualTo("kafka:ingest/0/0");
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();

            List<Map<String, String>> dead = kafka.deadLetters(1);

            assertThat(dead).singleElement().satisfies(h -> {
                assertThat(h).containsOnlyKeys(KafkaDeadLetters.ORIGIN_TOPIC, KafkaDeadLetters.ORIGIN_PARTITION,
                        KafkaDeadLetters.ORIGIN_OFFSET, KafkaDeadLetters.ERROR_CLASS, KafkaDeadLetters.FINGERPRINT,
                        KafkaDeadLetters.DLQ_ID, "value");
                assertThat(h).containsEntry(KafkaDeadLetters.ORIGIN_TOPIC, "ingest")
                        .containsEntry(KafkaDeadLetters.ORIGIN_PARTITION, "0")
                        .containsEntry(KafkaDeadLetters.ORIGIN_OFFSET, "0")
                        .containsEntry(KafkaDeadLetters.ERROR_CLASS, ErrorClass.PERMANENT_INPUT.code())
                        .containsEntry(KafkaDeadLetters.FINGERPRINT, record.errorFingerprint())
                        .containsEntry(KafkaDeadLetters.DLQ_ID, record.dlqId())
                        .containsEntry("value", message.toJson());
            });
            assertThat(pipeline.app().bean("ingestPublisher", IngestPublisher.class).pending()).isZero();
        }
    }

    @Test
    void shouldJournalEachDeliveryBeforeWorkWithTheCountTheGuardRead() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, new KafkaFixture(1), Map.of())) {
            String key = pipeline.publishFile("it", "damaged.pdf", Corpus.file("c0069.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");

            assertThat(journal(pipeline, key)).containsExactly("1:released", "2:quarantined");
            QuarantineRecord record = pipeline.store().find("it", "damaged.pdf").orElseThrow();
            assertThat(pipeline.store().attempts(record.dlqId())).singleElement()
                    .satisfies(a -> assertThat(a.deliveryCount()).isEqualTo(2));
        }
    }

    @Test
    void shouldCountAnAttemptThatDiedAsADelivery() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, new KafkaFixture(1), Map.of())) {
            // a consumer that died in delivery 1 of the first record left this open row behind
            AttemptJournal journal = new AttemptJournal(pipeline.app().bean("database", Database.class).dataSource(),
                    Clock.systemUTC());
            journal.stage(journal.open("kafka:ingest/0/0", "it", "good.pdf", 1), "parse");

            String key = pipeline.publishFile("it", "good.pdf", Corpus.file("c0007.pdf"));

            assertThat(key).isEqualTo("kafka:ingest/0/0");
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");
            assertThat(journal(pipeline, key)).containsExactly("1:null", "2:indexed");
            assertThat(pipeline.deliveries(key)).as("handed to the consumer").isEqualTo(1);
        }
    }

    /** @return the journal's rows for the key, oldest first, as {@code <delivery_count>:<outcome>} */
    private static List<String> journal(TestPipeline pipeline, String key) throws Exception {
        List<String> rows = new ArrayList<>();
        String sql = "SELECT delivery_count, outcome FROM attempt_journal WHERE delivery_key = ? ORDER BY attempt_id";
        try (Connection c = pipeline.app().bean("database", Database.class).dataSource().getConnection();
             PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, key);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getInt(1) + ":" + rs.getString(2));
                }
            }
        }
        return rows;
    }
}
