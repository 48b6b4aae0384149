package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.ConsumerGroupState;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.ingest.RawHttpServer;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.scenarios.KafkaFixture;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a document that takes far longer than the broker's redelivery timer is processed once: an HTTP
 * source drips its body over {@link #DRIP} (inside the fetch deadline), counted from outside by the server
 * itself. SQS on the embedded profile with a 5 s visibility timeout and two consumers; Kafka with three
 * consumers and a 12 s {@code max.poll.interval.ms}, where the records behind it on its partition are then
 * processed too. Fetched once, indexed once, never quarantined, its message acknowledged.
 */
class LongDocumentIT {

    private static final Duration WAIT = Duration.ofSeconds(180);
    /** How long the source takes to send the document's body. */
    private static final Duration DRIP = Duration.ofSeconds(20);
    private static final int DRIP_CHUNKS = 20;

    @TempDir
    Path data;

    @Test
    void shouldProcessASlowDocumentOnceOnSqsWithAFiveSecondVisibilityTimeout() throws Exception {
        try (DrippingSource source = new DrippingSource();
             TestPipeline pipeline = TestPipeline.start(data, source.allow(Map.of("sqs.visibility-timeout-s", "5")))) {
            String slow = pipeline.publish(source.message("slow.pdf"));

            assertThat(pipeline.awaitOutcome(slow, WAIT)).isEqualTo("indexed");
            Awaitility.await("acknowledged").atMost(WAIT).until(() -> pipeline.depth("ingest") == 0);

            source.assertFetchedOnce("/slow.pdf");
            assertThat(pipeline.deliveries(slow)).as("receives of the message, counted at the broker").isEqualTo(1);
            assertProcessedOnce(pipeline, slow, "slow.pdf");
            assertThat(pipeline.depth("ingest-dlq")).isZero();
        }
    }

    @Test
    void shouldProcessASlowDocumentOnceOnKafkaWithATwelveSecondPollInterval() throws Exception {
        KafkaFixture kafka = new KafkaFixture();
        try (DrippingSource source = new DrippingSource();
             TestPipeline pipeline = TestPipeline.start(data, kafka, source.allow(Map.of("ingest.from-uri", threeConsumers())))) {
            awaitGroupOfThree(kafka);
            String slow = pipeline.publish(source.message("slow.pdf"));
            int partition = partitionOf(slow);
            List<String> behind = new ArrayList<>();
            List<String> elsewhere = new ArrayList<>();
            for (int i = 0; behind.size() < 2 || elsewhere.size() < 2; i++) {
                String docId = "small-" + i + ".pdf";
                boolean same = Utils.toPositive(Utils.murmur2(docId.getBytes(StandardCharsets.UTF_8))) % 3 == partition;
                if ((same ? behind : elsewhere).size() < 2) {
                    (same ? behind : elsewhere).add(pipeline.publishFile("web", docId, Corpus.file("c0007.pdf")));
                }
            }

            for (String key : elsewhere) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as("other partitions: %s", key).isEqualTo("indexed");
            }
            assertThat(pipeline.awaitOutcome(slow, WAIT)).isEqualTo("indexed");
            for (String key : behind) {
                assertThat(partitionOf(key)).isEqualTo(partition);
                assertThat(pipeline.awaitOutcome(key, WAIT)).as("behind it on its partition: %s", key).isEqualTo("indexed");
            }
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            Awaitility.await("every offset committed").atMost(WAIT).until(() -> publisher.pending() == 0);

            source.assertFetchedOnce("/slow.pdf");
            // the group was stable before it was published and its consumer never left: no second delivery
            assertThat(pipeline.deliveries(slow)).as("records handed over by poll(), counted in the client").isEqualTo(1);
            assertProcessedOnce(pipeline, slow, "slow.pdf");
            assertThat(kafka.deadLettered()).isZero();
        }
    }

    /** Indexed once, never quarantined, one attempt opened and closed as indexed, no attempt left open. */
    private static void assertProcessedOnce(TestPipeline pipeline, String key, String docId) throws Exception {
        assertThat(pipeline.store().find("web", docId)).as("quarantine record").isEmpty();
        assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM documents WHERE source = 'web' AND doc_id = ?"
                + " AND state = 'searchable'", docId)).isEqualTo(1);
        assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?", key))
                .as("attempts").isEqualTo(1);
        assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?"
                + " AND outcome = 'indexed'", key)).as("attempts closed as indexed").isEqualTo(1);
    }

    /** The kafka profile's consumer with three consumers and a 12 s max.poll.interval.ms. */
    private static String threeConsumers() throws Exception {
        Properties profile = new Properties();
        try (InputStream in = LongDocumentIT.class.getResourceAsStream("/application-kafka.properties")) {
            profile.load(in);
        }
        String uri = profile.getProperty("ingest.from-uri").replaceAll("consumersCount=[^&]*", "consumersCount=3")
                + "&maxPollIntervalMs=12000";
        assertThat(uri).contains("consumersCount=3");
        return uri;
    }

    private static void awaitGroupOfThree(KafkaFixture kafka) {
        try (Admin admin = kafka.broker().admin()) {
            Awaitility.await("three consumers in a stable group").atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
                ConsumerGroupDescription g = admin.describeConsumerGroups(List.of("ingest-quarantine")).all()
                        .get(10, TimeUnit.SECONDS).get("ingest-quarantine");
                return g.state() == ConsumerGroupState.STABLE && g.members().size() == 3;
            });
        }
    }

    private static int partitionOf(String kafkaKey) {
        String[] parts = kafkaKey.split("/");
        return Integer.parseInt(parts[parts.length - 2]);
    }

    /**
     * A PDF source on loopback that answers HEAD at once and drips the GET body over {@link #DRIP}, counting
     * each request per path: the count no part of the pipeline can influence.
     */
    private static final class DrippingSource implements AutoCloseable {

        private final Map<String, AtomicInteger> requests = new java.util.concurrent.ConcurrentHashMap<>();
        private final RawHttpServer server;

        DrippingSource() throws Exception {
            byte[] pdf = Files.readAllBytes(Corpus.file("c0007.pdf"));
            server = new RawHttpServer((head, socket, out) -> {
                String[] line = head.split(" ", 3);
                requests.computeIfAbsent(line[0] + " " + line[1], k -> new AtomicInteger()).incrementAndGet();
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nETag: \"v1\"\r\n"
                        + "Content-Length: " + pdf.length + "\r\nConnection: close\r\n\r\n");
                if (head.startsWith("HEAD")) {
                    return;
                }
                int chunk = (pdf.length + DRIP_CHUNKS - 1) / DRIP_CHUNKS;
                for (int at = 0; at < pdf.length; at += chunk) {
                    Thread.sleep(DRIP.toMillis() / DRIP_CHUNKS);
                    out.write(pdf, at, Math.min(chunk, pdf.length - at));
                    out.flush();
                }
            });
        }

        IngestMessage message(String docId) {
            return new IngestMessage("web", docId, URI.create(server.url("/" + docId)), null, null, null);
        }

        /** @return the overrides given, plus source {@code web} allowed to read this server and the corpus */
        Map<String, String> allow(Map<String, String> overrides) {
            Map<String, String> p = new HashMap<>(overrides);
            p.put("sources.web.http-allow", "http://127.0.0.1:" + server.port());
            p.put("sources.web.http-allow-private", "true");
            p.put("sources.web.file-roots", TestPipeline.testRoots());
            return p;
        }

        void assertFetchedOnce(String path) {
            assertThat(count("HEAD " + path)).as("HEAD requests for %s", path).isEqualTo(1);
            assertThat(count("GET " + path)).as("GET requests for %s", path).isEqualTo(1);
        }

        private int count(String request) {
            AtomicInteger n = requests.get(request);
            return n == null ? 0 : n.get();
        }

        @Override
        public void close() throws Exception {
            server.close();
        }
    }
}
