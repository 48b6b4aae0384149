package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.embed.EmbeddingServer;
import org.ingestquarantine.ingest.embed.EmbeddingsJson;
import org.ingestquarantine.ingest.embed.OpenAiEmbedder;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the real pipeline with {@code embed.provider = openai}, against our own embedding service on loopback
 * (all-MiniLM-L6-v2 behind {@code /v1/embeddings}), indexes the sample PDFs as the local embedder does (same
 * documents, same chunk counts, the same vectors within 1e-4) without loading the model's weights itself; that a
 * service answering 429 for a while (its first three requests) costs transient releases, each waiting out its Retry-After, and no quarantine;
 * and that one returning 512-wide vectors quarantines the document downstream_contract on its first delivery.
 */
class EmbeddingServiceIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Path SAMPLES = Path.of("samples", "pdfs");

    /** How the service in front of the real model behaves. */
    private enum Mode { REAL, RATE_LIMITED, WIDE }

    private static final AtomicReference<Mode> MODE = new AtomicReference<>(Mode.REAL);
    /** How many more requests a rate-limited service answers 429. */
    private static final AtomicInteger LIMITED_LEFT = new AtomicInteger();
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
            if (mode == Mode.RATE_LIMITED && LIMITED_LEFT.getAndDecrement() > 0) {
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
    void shouldQuarantineVectorsOfTheWrongWidthDownstreamContract() throws Exception {
        MODE.set(Mode.WIDE);
        try (TestPipeline pipeline = TestPipeline.start(data, openai())) {
            String key = pipeline.publishFile("it", "wide.pdf", SAMPLES.resolve("01-text-one-page.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            QuarantineRecord r = pipeline.assertQuarantinedOnce(key, "it", "wide.pdf", ErrorClass.DOWNSTREAM_CONTRACT,
                    DownstreamContractException.VECTOR_WIDTH);
            assertThat(r.stage()).isEqualTo("embed");
        }
    }

    private static Map<String, String> openai(String... extra) {
        Map<String, String> p = new HashMap<>(Map.of("embed.provider", "openai",
                "embed.openai.url", "http://127.0.0.1:" + service.getAddress().getPort() + "/v1",
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
