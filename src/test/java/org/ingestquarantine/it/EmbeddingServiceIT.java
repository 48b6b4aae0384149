package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.embed.EmbeddingServer;
import org.ingestquarantine.ingest.embed.EmbeddingsJson;
import org.ingestquarantine.ingest.embed.OpenAiEmbedder;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.ModelService;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Ensures the real pipeline with {@code embed.provider = openai}, against our own embedding service on loopback
 * (all-MiniLM-L6-v2 behind {@code /v1/embeddings}), indexes the sample PDFs as the local embedder does (same
 * documents, same chunk counts, the same vectors within 1e-4) without loading the model's weights itself; that a
 * service answering 429 for a while (its first three requests) costs transient releases, each waiting out its Retry-After, and no quarantine;
 * that one returning 512-wide vectors quarantines the document downstream_contract on its first delivery; and that the
 * service going down (its server stopped, then started again on the same port) holds the consumer, as a database
 * outage does: nothing quarantined, no delivery burnt while it is down, every document indexed once it is back.
 */
class EmbeddingServiceIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Path SAMPLES = Path.of("samples", "pdfs");

    /** How the service in front of the real model behaves. */
    private enum Mode { REAL, RATE_LIMITED, WIDE }

    private static final AtomicReference<Mode> MODE = new AtomicReference<>(Mode.REAL);
    /** How many more requests a rate-limited service answers 429. */
    private static final AtomicInteger LIMITED_LEFT = new AtomicInteger();
    /** Until when (System.nanoTime) a rate-limited service answers 429 whatever the count; 0: by count only. */
    private static final java.util.concurrent.atomic.AtomicLong LIMITED_UNTIL = new java.util.concurrent.atomic.AtomicLong();
    /** How long the storm of 429s lasts (the case: a provider rate-limiting for half a minute). */
    private static final Duration STORM = Duration.ofSeconds(30);
    private static final List<Long> REQUESTS_AT = Collections.synchronizedList(new ArrayList<>());
    private static MiniLmEmbedder model;
    private static HttpServer service;

    @TempDir
    Path data;

    @BeforeAll
    static void startService() throws IOException {
        model = new MiniLmEmbedder();
        HttpHandler real = EmbeddingServer.handler(model, new EmbeddingServer.Limits("all-MiniLM-L6-v2", null, 16 << 20));
        service = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        service.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(4));
        service.createContext(EmbeddingServer.PATH, x -> {
            REQUESTS_AT.add(System.nanoTime());
            Mode mode = MODE.get();
            if (mode == Mode.RATE_LIMITED && (System.nanoTime() < LIMITED_UNTIL.get() || LIMITED_LEFT.getAndDecrement() > 0)) {
                x.getRequestBody().readAllBytes();
                x.getResponseHeaders().set("Retry-After", "1");
                send(x, 429, "{\"error\":{\"message\":\"Rate limit reached\"}}".getBytes(StandardCharsets.UTF_8));
            } else if (mode == Mode.WIDE) {
                int inputs = EmbeddingsJson.inputs(x.getRequestBody().readAllBytes()).size();
                send(x, 200, EmbeddingsJson.response(Collections.nCopies(inputs, new float[512]), "wide", 0));
            } else {
                real.handle(x);
            }
        });
        service.start();
    }

    @AfterAll
    static void stopService() {
        service.stop(0);
        model.close();
    }

    @BeforeEach
    void realService() {
        MODE.set(Mode.REAL);
        LIMITED_UNTIL.set(0);
        LIMITED_LEFT.set(0);
        REQUESTS_AT.clear();
    }

    @Test
    void shouldIndexTheSamplesAsTheLocalEmbedderDoes() throws Exception {
        Snapshot local;
        try (TestPipeline pipeline = TestPipeline.start(data.resolve("local"), Map.of("embed.provider", "local"))) {
            local = ingestSamples(pipeline);
        }
        Snapshot remote;
        try (TestPipeline pipeline = TestPipeline.start(data.resolve("openai"), openai())) {
            remote = ingestSamples(pipeline);
            assertThat(pipeline.bean("embedder", Embedder.class)).isInstanceOf(OpenAiEmbedder.class);
            assertThat(pipeline.bean("localModel", MiniLmEmbedder.class).modelLoaded())
                    .as("the consumer's own model weights, with provider openai").isNotDone();
        }
        assertThat(REQUESTS_AT).as("requests the service served").isNotEmpty();
        assertThat(remote.outcomes()).isEqualTo(local.outcomes());
        assertThat(local.chunkCounts()).as("indexed samples").hasSizeGreaterThanOrEqualTo(4);
        assertThat(remote.chunkCounts()).isEqualTo(local.chunkCounts());
        assertThat(remote.versions()).containsOnly("openai:all-MiniLM-L6-v2/384");
        assertThat(local.versions()).doesNotContain("openai:all-MiniLM-L6-v2/384");
        assertThat(remote.firstVectors().keySet()).isEqualTo(local.firstVectors().keySet());
        for (String docId : local.firstVectors().keySet()) {
            Float[] a = local.firstVectors().get(docId);
            Float[] b = remote.firstVectors().get(docId);
            assertThat(b).hasSameSizeAs(a);
            for (int d = 0; d < a.length; d++) {
                assertThat((double) Math.abs(a[d] - b[d])).as("%s dimension %d", docId, d).isLessThan(1e-4);
            }
        }
    }

    @Test
    void shouldReleaseWhileTheServiceAnswers429AndIndexOnceItAnswers() throws Exception {
        // Retry-After 1 s, within failure.transient.backoff-max-ms (2 s here): each release waits about 1 s
        MODE.set(Mode.RATE_LIMITED);
        try (TestPipeline pipeline = TestPipeline.start(data, openai("failure.transient.backoff-max-ms", "2000"))) {
            LIMITED_LEFT.set(3);
            String key = pipeline.publishFile("it", "rate-limited.pdf", SAMPLES.resolve("01-text-one-page.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");
            assertThat(pipeline.deliveries(key)).as("deliveries: three released while limited, then indexed")
                    .isEqualTo(4);
            assertThat(pipeline.store().find("it", "rate-limited.pdf")).as("quarantine record").isEmpty();
            List<Long> at = new ArrayList<>(REQUESTS_AT);
            for (int i = 1; i < at.size(); i++) {
                assertThat(Duration.ofNanos(at.get(i) - at.get(i - 1))).as("wait before request %d", i)
                        .isGreaterThanOrEqualTo(Duration.ofMillis(950));
            }
        }
    }

    @Test
    void shouldHoldThroughThirtySecondsOf429AndQuarantineNothing() throws Exception {
        // 429 for 30 s: past embed.openai.outage-after-failures in a row the breaker holds the consumer and probes,
        // so the deliveries stop at the consumer's entrance instead of spending the transient budget
        MODE.set(Mode.RATE_LIMITED);
        try (TestPipeline pipeline = TestPipeline.start(data, openai("failure.transient.backoff-max-ms", "2000"))) {
            LIMITED_UNTIL.set(System.nanoTime() + STORM.toNanos());
            long began = System.nanoTime();
            List<String> keys = new ArrayList<>();
            for (String name : List.of("01-text-one-page.pdf", "02-text-three-pages.pdf")) {
                keys.add(pipeline.publishFile("it", "storm-" + name, SAMPLES.resolve(name)));
            }
            for (String key : keys) {
                assertThat(pipeline.awaitOutcome(key, WAIT.plus(STORM))).isEqualTo("indexed");
                assertThat(pipeline.deliveries(key)).as("deliveries of %s", key)
                        .isLessThanOrEqualTo(ShippedProperties.policies().forClass(ErrorClass.TRANSIENT).retries());
            }
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(STORM);
            assertThat(pipeline.store().find("it", "storm-01-text-one-page.pdf")).as("quarantine record").isEmpty();
            assertThat(pipeline.store().find("it", "storm-02-text-three-pages.pdf")).as("quarantine record").isEmpty();
        }
    }

    @Test
    void shouldQuarantineVectorsOfTheWrongWidthDownstreamContract() throws Exception {
        MODE.set(Mode.WIDE);
        try (TestPipeline pipeline = TestPipeline.start(data, openai())) {
            String key = pipeline.publishFile("it", "wide.pdf", SAMPLES.resolve("01-text-one-page.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            QuarantineRecord r = pipeline.assertQuarantinedOnce(key, "it", "wide.pdf", ErrorClass.DOWNSTREAM_CONTRACT,
                    DownstreamContractException.VECTOR_WIDTH);
            assertThat(r.stage()).isEqualTo("embed");
            // the series the DownstreamContract alert fires on (monitoring/prometheus: any increase in an hour)
            java.net.URI scrape = java.net.URI.create(pipeline.app().bean(
                    org.ingestquarantine.app.AppConfiguration.SCRAPE_URL, String.class));
            await().atMost(WAIT).until(() -> org.ingestquarantine.testsupport.Scrape.of(scrape, WAIT).sum(
                    "ingest_downstream_contract_total", Map.of("source", "it", "reason",
                            DownstreamContractException.VECTOR_WIDTH)) == 1.0);
        }
    }

    @Test
    void shouldHoldTheConsumerWhileTheServiceIsDownAndIndexEveryDocumentOnceItIsBack() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(ConsumerCircuitBreaker.class);
        logs.start();
        logger.addAppender(logs);
        int port = FreePort.find();
        ModelService up = ModelService.start(model, port, 2);
        try (TestPipeline pipeline = TestPipeline.start(data, openaiAt(port))) {
            ConsumerCircuitBreaker breaker = pipeline.bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            String before = pipeline.publishFile("it", "before.pdf", SAMPLES.resolve("01-text-one-page.pdf"));
            assertThat(pipeline.awaitOutcome(before, WAIT)).isEqualTo("indexed");

            up.close();
            Map<String, String> keys = new TreeMap<>();
            for (String file : List.of("01-text-one-page.pdf", "02-text-three-pages.pdf", "04-text-twelve-pages.pdf")) {
                keys.put("during-" + file, pipeline.publishFile("it", "during-" + file, SAMPLES.resolve(file)));
            }
            await("consumer held").atMost(WAIT).until(breaker::isOpen);
            // a delivery that failed as the breaker opened comes back within its back-off (at most 200 ms here) and
            // one SQS receive (1 s), and is then held too
            Thread.sleep(3_000);
            Map<String, Integer> heldAt = deliveries(pipeline, keys);
            // held, not burning deliveries, over many probes (db.probe-interval-ms is 200 ms here)
            await("held while the service is down").during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(20))
                    .until(() -> breaker.isOpen() && deliveries(pipeline, keys).equals(heldAt));
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).isZero();

            up = ModelService.start(model, port, 2);

            for (String key : keys.values()) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");
            }
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).as("records").isZero();
            Map<String, Integer> deliveries = deliveries(pipeline, keys);
            assertThat(deliveries.values()).as("deliveries per document %s: released once at most, then held", deliveries)
                    .allMatch(n -> n >= 1 && n <= 2).contains(2);
            assertThat(pipeline.deliveries(before)).isEqualTo(1);
            assertThat(breaker.isOpen()).isFalse();
            List<String> warnings = logs.list.stream().filter(l -> l.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage).toList();
            assertThat(warnings).as("one line when it opens").hasSize(1);
            assertThat(warnings.get(0)).contains("embed.openai.url").contains("127.0.0.1:" + port);
            assertThat(logs.list.stream().filter(l -> l.getLevel() == Level.INFO)
                    .map(ILoggingEvent::getFormattedMessage)).as("one line when it closes")
                    .singleElement().asString().contains("embed.openai.url").contains("answers again");
        } finally {
            up.close();
            logger.detachAppender(logs);
        }
    }

    private static Map<String, Integer> deliveries(TestPipeline pipeline, Map<String, String> keys) {
        Map<String, Integer> counts = new TreeMap<>();
        keys.forEach((name, key) -> counts.put(name, pipeline.deliveries(key)));
        return counts;
    }

    private static Map<String, String> openai(String... extra) {
        return openaiAt(service.getAddress().getPort(), extra);
    }

    private static Map<String, String> openaiAt(int port, String... extra) {
        Map<String, String> p = new HashMap<>(Map.of("embed.provider", "openai",
                "embed.openai.url", "http://127.0.0.1:" + port + "/v1",
                "embed.openai.batch-chunks", "8"));
        for (int i = 0; i < extra.length; i += 2) {
            p.put(extra[i], extra[i + 1]);
        }
        return p;
    }

    /**
     * @param outcomes each sample's outcome
     * @param chunkCounts each indexed sample's chunk count
     * @param versions the embedder versions in the index
     * @param firstVectors each indexed sample's first chunk's vector
     */
    private record Snapshot(Map<String, String> outcomes, Map<String, Integer> chunkCounts, List<String> versions,
                            Map<String, Float[]> firstVectors) {
    }

    private static Snapshot ingestSamples(TestPipeline pipeline) throws Exception {
        Map<String, String> keys = new TreeMap<>();
        try (Stream<Path> files = Files.list(SAMPLES)) {
            for (Path file : files.sorted().toList()) {
                keys.put(file.getFileName().toString(), pipeline.publishFile("it", file.getFileName().toString(), file));
            }
        }
        Map<String, String> outcomes = new TreeMap<>();
        for (Map.Entry<String, String> e : keys.entrySet()) {
            outcomes.put(e.getKey(), pipeline.awaitOutcome(e.getValue(), WAIT));
        }
        Map<String, Integer> counts = new TreeMap<>();
        List<String> versions = new ArrayList<>();
        Map<String, Float[]> vectors = new TreeMap<>();
        DataSource db = pipeline.dataSource();
        try (Connection c = db.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT d.doc_id, d.chunk_count, d.embedder_version, k.embedding"
                     + " FROM documents d JOIN chunks k ON k.source = d.source AND k.doc_id = d.doc_id AND k.seq = 0"
                     + " WHERE d.source = 'it' AND d.state = 'searchable'");
             ResultSet r = s.executeQuery()) {
            while (r.next()) {
                counts.put(r.getString(1), r.getInt(2));
                versions.add(r.getString(3));
                vectors.put(r.getString(1), (Float[]) r.getArray(4).getArray());
            }
        }
        return new Snapshot(outcomes, counts, versions, vectors);
    }

    private static void send(com.sun.net.httpserver.HttpExchange x, int status, byte[] body) throws IOException {
        x.getResponseHeaders().set("Content-Type", "application/json");
        x.sendResponseHeaders(status, body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
        x.close();
    }
}
