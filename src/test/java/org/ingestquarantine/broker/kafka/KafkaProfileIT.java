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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.DocumentState;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineRecorder;
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
            // the offset is committed after the outcome (never before it): the record leaves the lag just after
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> publisher.pending() == 0);
        }
    }

    @Test
    void shouldCopyAQuarantinedRecordToTheDeadLetterTopicWithStringHeaders() throws Exception {
        KafkaFixture kafka = new KafkaFixture(1);
        try (TestPipeline pipeline = TestPipeline.start(data, kafka, Map.of())) {
            IngestMessage message = new IngestMessage("it", "html.pdf", Corpus.file("c0066.pdf").toAbsolutePath().toUri(),
                    null, null, null);
            String key = pipeline.publish(message);
            assertThat(key).isEqualTo("kafka:ingest/0/0@" + topicId(kafka));
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

            // a record that is not UTF-8 at all: its copy carries the key and value bytes unchanged, and its
            // quarantine record keeps the value as its payload
            byte[] binaryKey = {(byte) 0xff, 0x00, (byte) 0xc3, 0x28};
            byte[] binaryValue = {(byte) 0xfe, (byte) 0xff, 0x00, '{', (byte) 0x80, (byte) 0xbf};
            try (var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(Map.<String, Object>of(
                    "bootstrap.servers", kafka.broker().bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.send(new ProducerRecord<>(KafkaFixture.TOPIC, binaryKey, binaryValue)).get();
            }
            String binary = "kafka:ingest/0/1@" + topicId(kafka);
            assertThat(pipeline.awaitOutcome(binary, WAIT)).isEqualTo("quarantined");
            TestPipeline.assertPayload(pipeline.store().find(QuarantineRecorder.INVALID_MESSAGES_SOURCE, binary).orElseThrow(),
                    binaryValue);
            List<ConsumerRecord<byte[], byte[]>> copies = kafka.deadLetterRecords(2);
            assertThat(copies).hasSize(2);
            assertThat(copies.get(1).key()).isEqualTo(binaryKey);
            assertThat(copies.get(1).value()).isEqualTo(binaryValue);
            // the offset is committed after the outcome (never before it): the record leaves the lag just after
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> publisher.pending() == 0);
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
            KafkaFixture kafka = (KafkaFixture) pipeline.broker();
            journal.stage(journal.open("kafka:ingest/0/0@" + topicId(kafka), "it", "good.pdf", 1), "parse");

            String key = pipeline.publishFile("it", "good.pdf", Corpus.file("c0007.pdf"));

            assertThat(key).isEqualTo("kafka:ingest/0/0@" + topicId(kafka));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");
            assertThat(journal(pipeline, key)).containsExactly("1:null", "2:indexed");
            assertThat(pipeline.deliveries(key)).as("handed to the consumer").isEqualTo(1);
        }
    }

    /**
     * A new cluster (or a re-created topic) restarts offsets at 0 under a new topic id: its first record is
     * delivery 1, not "delivery 2 of 1" inherited from the old topic's record at the same offset.
     */
    @Test
    void shouldStartARecreatedTopicsRecordsFromDeliveryOne() throws Exception {
        IngestMessage message = new IngestMessage("it", "html.pdf", Corpus.file("c0066.pdf").toAbsolutePath().toUri(),
                null, null, null);
        String first;
        try (TestPipeline pipeline = TestPipeline.start(data, new KafkaFixture(1), Map.of())) {
            first = pipeline.publish(message);
            assertThat(pipeline.awaitOutcome(first, WAIT)).isEqualTo("quarantined");
        }
        try (TestPipeline pipeline = TestPipeline.start(data, new KafkaFixture(1), Map.of())) {
            String second = pipeline.publish(message);
            assertThat(second).startsWith("kafka:ingest/0/0@").isNotEqualTo(first);
            assertThat(pipeline.awaitOutcome(second, WAIT)).isEqualTo("quarantined");

            assertThat(journal(pipeline, second)).containsExactly("1:quarantined");
            QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
            assertThat(pipeline.store().attempts(record.dlqId())).extracting(a -> a.deliveryCount()).containsExactly(1, 1);
        }
    }

    /** A slow document on one partition never holds another partition's records (one consumer per partition). */
    @Test
    void shouldNotLetASlowPartitionHoldTheOthers() throws Exception {
        java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
        com.sun.net.httpserver.HttpServer slow = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        slow.createContext("/", ex -> {
            try {
                hold.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(404, -1);
            ex.close();
        });
        slow.start();
        String origin = "http://127.0.0.1:" + slow.getAddress().getPort();
        KafkaFixture kafka = new KafkaFixture(2);
        try (TestPipeline pipeline = TestPipeline.start(data, kafka, Map.of("sources.it.http-allow", origin,
                "sources.it.http-allow-private", "true"));
             var producer = new org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]>(Map.<String, Object>of(
                     "bootstrap.servers", kafka.broker().bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer())) {
            IngestMessage held = new IngestMessage("it", "slow.pdf", java.net.URI.create(origin + "/slow.pdf"), null, null, null);
            producer.send(new ProducerRecord<>(KafkaFixture.TOPIC, 0, null, held.toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8))).get();
            for (int i = 0; i < 3; i++) {
                IngestMessage good = new IngestMessage("it", "other-" + i + ".pdf",
                        Corpus.file("c0007.pdf").toAbsolutePath().toUri(), null, null, null);
                producer.send(new ProducerRecord<>(KafkaFixture.TOPIC, 1, null, good.toJson().getBytes(java.nio.charset.StandardCharsets.UTF_8))).get();
            }
            DocumentIndex index = pipeline.app().bean("documentIndex", DocumentIndex.class);
            Awaitility.await("partition 1 indexed while partition 0 is held").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> java.util.stream.IntStream.range(0, 3).allMatch(i -> index.state("it", "other-" + i + ".pdf")
                            .equals(Optional.of(DocumentState.SEARCHABLE))));
            assertThat(hold.getCount()).as("the slow document is still held").isEqualTo(1);
            hold.countDown();
            Awaitility.await("the slow document settled").atMost(WAIT)
                    .until(() -> pipeline.store().find("it", "slow.pdf").isPresent());
        } finally {
            hold.countDown();
            slow.stop(0);
        }
    }

    private static String topicId(KafkaFixture kafka) throws Exception {
        try (var admin = kafka.broker().admin()) {
            return admin.describeTopics(List.of(KafkaFixture.TOPIC)).topicNameValues().get(KafkaFixture.TOPIC)
                    .get(10, java.util.concurrent.TimeUnit.SECONDS).topicId().toString();
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
