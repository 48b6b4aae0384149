package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.scenarios.KafkaFixture;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.KafkaKraftBroker;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures SIGTERM stops {@code run --profile kafka} within 10 s while a document is being released (issue 21
 * item 6), as SQS and RabbitMQ stop: the release's back-off wait ends with the signal, and the record, handed back
 * once, is not read again while the consumer stops (before, it was re-read every 2 s until the 90 s shutdown
 * timeout, and a 30 s grace period ended in SIGKILL). Its offset stays uncommitted, so nothing is lost: the
 * source sees one GET only.
 */
class KafkaShutdownIT {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path tmp;

    @Test
    void shouldExitWithinTenSecondsOfSigtermDuringARelease() throws Exception {
        Path log = ConsumerProcess.freshLog("kafka-shutdown-it.log");
        AtomicInteger gets = new AtomicInteger();
        HttpServer busy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        busy.createContext("/", ex -> {
            gets.incrementAndGet();
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        busy.start();
        String origin = "http://127.0.0.1:" + busy.getAddress().getPort();
        try (KafkaKraftBroker kafka = KafkaKraftBroker.start();
             EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
            kafka.createTopic(KafkaFixture.TOPIC, 1, Map.of());
            kafka.createTopic(KafkaFixture.DLQ_TOPIC, 1, Map.of());
            Map<String, String> props = TestPipeline.externalConsumerProperties(pg);
            props.put("kafka.bootstrap-servers", kafka.bootstrapServers());
            props.put("sources.it.http-allow", origin);
            props.put("sources.it.http-allow-private", "true");
            // a production-sized back-off: the release waits it out on the consumer thread (kafka.release-max-wait-ms 30 s)
            props.put("failure.transient.backoff-initial-ms", "20000");
            props.put("failure.transient.backoff-max-ms", "20000");
            try (ConsumerProcess consumer = ConsumerProcess.start("kafka", Files.createDirectories(tmp.resolve("data")),
                    props, Map.of(), log)) {
                publish(kafka, new IngestMessage("it", "busy.pdf", URI.create(origin + "/busy.pdf"), null, null, null));
                Awaitility.await("the first delivery released").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                        .until(() -> SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE doc_id = 'busy.pdf'"
                                + " AND outcome = 'released'") == 1);
                Thread.sleep(1_000);

                long t0 = System.nanoTime();
                int exit = consumer.terminate();
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                System.out.println("kafka consumer stopped " + took.toMillis() + " ms after SIGTERM during a release");
                assertThat(exit).as("exit code after SIGTERM").isZero();
                assertThat(took).as("from SIGTERM to exit").isLessThan(Duration.ofSeconds(10));
            }
            assertThat(gets.get()).as("GETs at the source").isEqualTo(1);
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open").isZero();
            assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine")).isZero();
            try (Admin admin = kafka.admin()) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("ingest-quarantine")
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                OffsetAndMetadata at = committed.get(new TopicPartition(KafkaFixture.TOPIC, 0));
                assertThat(at == null ? 0 : at.offset()).as("committed offset: the released record is still ahead").isZero();
            }
        } finally {
            busy.stop(0);
        }
    }

    private static void publish(KafkaKraftBroker kafka, IngestMessage message) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(KafkaFixture.TOPIC, message.docId(), message.toJson())).get(30, TimeUnit.SECONDS);
        }
    }
}
