package org.ingestquarantine.ingest.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.TextChunk;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.FreePort;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Ensures the OpenAI-compatible provider, against real HTTP servers on loopback, gives the local model's
 * vectors when the service is our own serve-embeddings, and classifies every way a service can fail: 429 (with
 * its Retry-After), 5xx, a refused connection and a timeout transient; garbage, the wrong width, the wrong count
 * and a refused request downstream_contract; with the key sent as a Bearer and never shown.
 */
class OpenAiEmbedderTest {

    private static final String KEY = "sk-test-0123456789-secret";
    /** Transient failures in a row from which the service is down (embed.openai.outage-after-failures here). */
    private static final int OUTAGE_AFTER = 3;
    private static final List<String> TEXTS = List.of("the contract ends in May", "invoices are due in thirty days");

    private static MiniLmEmbedder local;
    private HttpServer fault;

    @BeforeAll
    static void load() {
        local = new MiniLmEmbedder(2, 7);
    }

    @AfterAll
    static void close() {
        local.close();
    }

    @AfterEach
    void stopFault() {
        if (fault != null) {
            fault.stop(0);
        }
    }

    @Test
    void shouldGiveTheLocalModelsVectorsThroughTheService() throws Exception {
        List<String> chunks = sampleChunks();
        assertThat(chunks.size()).as("chunks").isGreaterThan(30);
        try (EmbeddingServer server = EmbeddingServer.start(loopback(), local,
                new EmbeddingServer.Limits("all-MiniLM-L6-v2", KEY, 16 << 20), 4)) {
            // batches of 7: several requests per call, in order
            OpenAiEmbedder remote = embedder(server.baseUrl(), 7, 384);
            List<float[]> theirs = remote.embed(chunks);
            List<float[]> ours = local.embed(chunks);
            assertThat(theirs).hasSameSizeAs(ours);
            double worst = 0;
            for (int i = 0; i < chunks.size(); i++) {
                assertThat(theirs.get(i)).hasSize(384);
                for (int d = 0; d < 384; d++) {
                    worst = Math.max(worst, Math.abs(theirs.get(i)[d] - ours.get(i)[d]));
                }
            }
            assertThat(worst).as("largest difference over %d chunks", chunks.size()).isLessThan(1e-4);
            assertThat(remote.version()).isEqualTo("openai:all-MiniLM-L6-v2/384").isNotEqualTo(local.version());
            assertThat(remote.maxTokens()).isEqualTo(local.maxTokens());
        }
    }

    @Test
    void shouldRefuseARequestWithoutTheKeyAsAContractBreachThatNeverShowsTheKey() throws Exception {
        try (EmbeddingServer server = EmbeddingServer.start(loopback(), local,
                new EmbeddingServer.Limits("all-MiniLM-L6-v2", KEY, 16 << 20), 1)) {
            OpenAiSettings s = settings(server.baseUrl(), 32, 384);
            OpenAiEmbedder wrongKey = new OpenAiEmbedder(s, local, name -> "sk-wrong-key");
            Throwable e = catchFailure(() -> wrongKey.embed(TEXTS));
            assertClass(e, ErrorClass.DOWNSTREAM_CONTRACT, "embed_http_401");
            assertThat(e.getMessage()).contains("IQ_EMBED_API_KEY").doesNotContain("sk-wrong-key").doesNotContain(KEY);
        }
    }

    @Test
    void shouldReleaseA429AskingForItsRetryAfter() throws Exception {
        String url = serveFault(x -> {
            x.getResponseHeaders().set("Retry-After", "7");
            respond(x, 429, "{\"error\":{\"message\":\"Rate limit reached\"}}");
        });
        Throwable e = catchFailure(() -> embedder(url, 32, 384).embed(TEXTS));
        assertClass(e, ErrorClass.TRANSIENT, "embed_http_429");
        assertThat(((TransientException) e).retryAfter()).contains(Duration.ofSeconds(7));
        assertThat(e.getMessage()).contains("embed.openai.url").contains("429").contains("Rate limit reached");
    }

    @Test
    void shouldReleaseA500() throws Exception {
        String url = serveFault(x -> respond(x, 500, "internal error\n\u001b[31mred"));
        Throwable e = catchFailure(() -> embedder(url, 32, 384).embed(TEXTS));
        assertClass(e, ErrorClass.TRANSIENT, "embed_http_500");
        assertThat(((TransientException) e).retryAfter()).isEmpty();
        assertThat(e.getMessage()).as("the body escaped").contains("internal error\\n\\u001B[31mred")
                .doesNotContain("\n").doesNotContain("\u001b");
    }

    @Test
    void shouldQuarantineGarbageAsAContractBreach() throws Exception {
        String url = serveFault(x -> respond(x, 200, "<html>not json</html>"));
        assertClass(catchFailure(() -> embedder(url, 32, 384).embed(TEXTS)), ErrorClass.DOWNSTREAM_CONTRACT,
                EmbeddingsJson.UNREADABLE);
    }

    @Test
    void shouldQuarantineVectorsOfTheWrongWidthAsAContractBreach() throws Exception {
        String url = serveFault(x -> respond(x, 200, new String(EmbeddingsJson.response(
                List.of(new float[512], new float[512]), "m", 4), StandardCharsets.UTF_8)));
        Throwable e = catchFailure(() -> embedder(url, 32, 384).embed(TEXTS));
        assertClass(e, ErrorClass.DOWNSTREAM_CONTRACT, DownstreamContractException.VECTOR_WIDTH);
        assertThat(e.getMessage()).contains("512").contains("384");
    }

    @Test
    void shouldQuarantineTheWrongCountOfVectorsAsAContractBreach() throws Exception {
        String url = serveFault(x -> respond(x, 200, new String(EmbeddingsJson.response(
                List.of(new float[384]), "m", 4), StandardCharsets.UTF_8)));
        Throwable e = catchFailure(() -> embedder(url, 32, 384).embed(TEXTS));
        assertClass(e, ErrorClass.DOWNSTREAM_CONTRACT, EmbeddingsJson.COUNT);
        assertThat(e.getMessage()).contains("1 vectors for 2 inputs");
    }

    @Test
    void shouldPutEachVectorAtItsIndex() throws Exception {
        float[] first = new float[384];
        first[0] = 1;
        float[] second = new float[384];
        second[1] = 1;
        String body = "{\"data\":[{\"index\":1,\"embedding\":" + json(second) + "},{\"index\":0,\"embedding\":"
                + json(first) + "}]}";
        String url = serveFault(x -> respond(x, 200, body));
        List<float[]> vectors = embedder(url, 32, 384).embed(TEXTS);
        assertThat(vectors.get(0)[0]).isEqualTo(1f);
        assertThat(vectors.get(1)[1]).isEqualTo(1f);
    }

    @Test
    void shouldReleaseATimeout() throws Exception {
        String url = serveFault(x -> {
            sleep(2_000);
            respond(x, 200, "{}");
        });
        OpenAiSettings s = new OpenAiSettings(URI.create(url), "all-MiniLM-L6-v2", 384, 32,
                new OpenAiSettings.Timeouts(Duration.ofSeconds(2), Duration.ofMillis(300)), "IQ_EMBED_API_KEY", OUTAGE_AFTER);
        Throwable e = catchFailure(() -> new OpenAiEmbedder(s, local, name -> null).embed(TEXTS));
        assertClass(e, ErrorClass.TRANSIENT, "embed_timeout");
        assertThat(e.getMessage()).contains("embed.openai.request-timeout-ms");
    }

    @Test
    void shouldTakeARefusedConnectionForTheServiceDownNamingTheUrlSettingAndLogNothingItself() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger logger = (Logger) LoggerFactory.getLogger(EmbeddingsClient.class);
        logs.start();
        logger.addAppender(logs);
        try {
            OpenAiEmbedder refused = embedder("http://127.0.0.1:" + FreePort.find() + "/v1", 32, 384);
            Throwable e = catchFailure(() -> refused.embed(TEXTS));
            assertClass(e, ErrorClass.TRANSIENT, "embed_connection_refused");
            assertThat(e).as("the first refusal holds the consumer").isInstanceOf(ServiceUnreachableException.class);
            assertThat(((ServiceUnreachableException) e).setting()).isEqualTo(OpenAiSettings.URL);
            assertThat(e.getMessage()).contains("embed.openai.url").contains("refused the connection");
            assertThat(refused.answers()).as("the probe of a service that is down").isFalse();
            assertThat(logs.list).as("the breaker logs the outage, once").isEmpty();
        } finally {
            logger.detachAppender(logs);
        }
    }

    @Test
    void shouldTakeTheServiceForDownOnlyAfterItsFailuresInARowAndCountAgainOnceItAnswers() throws Exception {
        AtomicInteger status = new AtomicInteger(503);
        String url = serveFault(x -> {
            if (status.get() == 200) {
                respond(x, 200, new String(EmbeddingsJson.response(List.of(new float[384]), "m", 1),
                        StandardCharsets.UTF_8));
            } else {
                respond(x, status.get(), "{\"error\":{\"message\":\"overloaded\"}}");
            }
        });
        OpenAiEmbedder busy = embedder(url, 32, 384);
        List<String> one = TEXTS.subList(0, 1);
        for (int i = 1; i < OUTAGE_AFTER; i++) {
            Throwable e = catchFailure(() -> busy.embed(one));
            assertClass(e, ErrorClass.TRANSIENT, "embed_http_503");
            assertThat(e).as("failure %d: an ordinary release", i).isNotInstanceOf(ServiceUnreachableException.class);
        }
        Throwable down = catchFailure(() -> busy.embed(one));
        assertClass(down, ErrorClass.TRANSIENT, "embed_http_503");
        assertThat(down).as("failure " + OUTAGE_AFTER + " in a row").isInstanceOf(ServiceUnreachableException.class);
        assertThat(down.getMessage()).contains("embed.openai.outage-after-failures");
        assertThat(busy.answers()).as("the probe while it answers 503").isFalse();

        status.set(200);
        assertThat(busy.answers()).as("the probe once it answers").isTrue();
        status.set(503);
        assertThat(catchFailure(() -> busy.embed(one))).as("counted from 0 again after the answer")
                .isNotInstanceOf(ServiceUnreachableException.class);
    }

    @Test
    void shouldSendTheKeyAsABearer() throws Exception {
        AtomicReference<String> auth = new AtomicReference<>();
        String url = serveFault(x -> {
            auth.set(x.getRequestHeaders().getFirst("Authorization"));
            respond(x, 200, new String(EmbeddingsJson.response(List.of(new float[384], new float[384]), "m", 4),
                    StandardCharsets.UTF_8));
        });
        embedder(url, 32, 384).embed(TEXTS);
        assertThat(auth.get()).isEqualTo("Bearer " + KEY);
    }

    @Test
    void shouldNameTheSettingOfABadUrl() {
        assertThatThrownBy(() -> settings("ftp://example.org/v1", 32, 384)).hasMessageContaining("embed.openai.url");
    }

    private static OpenAiEmbedder embedder(String url, int batch, int dimensions) {
        return new OpenAiEmbedder(settings(url, batch, dimensions), local,
                name -> "IQ_EMBED_API_KEY".equals(name) ? KEY : null);
    }

    private static OpenAiSettings settings(String url, int batch, int dimensions) {
        return new OpenAiSettings(URI.create(url), "all-MiniLM-L6-v2", dimensions, batch,
                new OpenAiSettings.Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(30)), "IQ_EMBED_API_KEY",
                OUTAGE_AFTER);
    }

    /** @return the base URL of a loopback server answering every request with {@code handler} */
    private String serveFault(HttpHandler handler) throws IOException {
        AtomicInteger requests = new AtomicInteger();
        fault = HttpServer.create(loopback(), 0);
        fault.createContext(EmbeddingServer.PATH, x -> {
            requests.incrementAndGet();
            x.getRequestBody().readAllBytes();
            handler.handle(x);
        });
        fault.start();
        return "http://127.0.0.1:" + fault.getAddress().getPort() + "/v1";
    }

    private static InetSocketAddress loopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    private static void respond(HttpExchange x, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String json(float[] v) {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < v.length; i++) {
            s.append(i == 0 ? "" : ",").append(v[i]);
        }
        return s.append(']').toString();
    }

    private static Throwable catchFailure(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }

    private static void assertClass(Throwable e, ErrorClass expected, String reason) {
        Classification c = ErrorTaxonomy.standard().classify(e);
        assertThat(c.errorClass()).as("class of %s", e).isEqualTo(expected);
        assertThat(c.reasonCode()).isEqualTo(reason);
    }

    /** @return the chunks of the sample PDFs with text and of a few corpus documents, as the chunker cuts them */
    private static List<String> sampleChunks() throws Exception {
        WindowChunker chunker = new WindowChunker(WindowChunker.DEFAULT_MAX_CHARS, local.maxTokens(),
                WindowChunker.DEFAULT_OVERLAP_WORDS, local::countTokens, local::countTokensPerWord);
        InProcessPdfParser parser = new InProcessPdfParser();
        List<String> chunks = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        for (String file : List.of("01-text-one-page.pdf", "02-text-three-pages.pdf", "04-text-twelve-pages.pdf")) {
            files.add(Path.of("samples/pdfs", file));
        }
        for (String file : List.of("c0012.pdf", "c0023.pdf", "c0047.pdf")) {
            files.add(Corpus.file(file));
        }
        for (Path file : files) {
            List<String> pages = parser.parse(file).pageTexts();
            chunker.chunk(pages).stream().map(TextChunk::text).limit(20).forEach(chunks::add);
        }
        return chunks;
    }
}
