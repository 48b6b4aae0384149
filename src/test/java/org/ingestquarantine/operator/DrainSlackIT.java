package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.ingest.HttpTimeouts;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.parse.ParseException;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.ArrivalWindows;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.ingestquarantine.testsupport.TwoDimensionEmbedder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a drain takes only the slack of the source's shared bucket (DESIGN §6): the live path, counted at a real
 * HTTP server on loopback, keeps at least 95% of its rate alone while a drain at the ceiling runs beside it, and no
 * second at the server holds more than the ceiling. The live path and the drain each have their own connection pool
 * and throttle, as two processes (a {@code run} and a {@code drain}) do: the bucket is shared only through its row
 * in PostgreSQL.
 */
class DrainSlackIT extends PostgresTestBase {

    /** The source's ceiling in seed 003: 10 requests per second. */
    private static final double CEILING_PER_S = 10;
    /** The live connector's work per document between its GET and the next HEAD: 2 requests per 0.5 s, seed 003's 4/s. */
    private static final Duration LIVE_WORK = Duration.ofMillis(500);
    private static final int LIVE_DOCUMENTS = 12;
    private static final double LIVE_SHARE_KEPT = 0.95;
    private static final HttpTimeouts HTTP = new HttpTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5),
            Duration.ofSeconds(30), 5);
    private static final String COHORT = "fp-slack";

    @TempDir
    Path temp;

    private HttpServer server;
    private URI base;
    /** Arrival at the server, nanoTime, of every live request and every drain request. */
    private final List<Long> live = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> drained = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/docs/", this::serve);
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/docs/");
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    /** Live documents are there (200 with a body); the drain's cohort is gone from the source (404, one HEAD each). */
    private void serve(HttpExchange x) throws IOException {
        long arrived = System.nanoTime();
        try (x) {
            String name = x.getRequestURI().getPath().substring("/docs/".length());
            (name.startsWith("live-") ? live : drained).add(arrived);
            if (!name.startsWith("live-")) {
                x.sendResponseHeaders(404, -1);
                return;
            }
            byte[] body = "live document".getBytes(StandardCharsets.US_ASCII);
            x.getResponseHeaders().set("ETag", "\"" + name + "\"");
            boolean head = "HEAD".equals(x.getRequestMethod());
            if (head) {
                x.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
            }
            x.sendResponseHeaders(200, head ? -1 : body.length);
            if (!head) {
                try (OutputStream out = x.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    @Test
    void shouldKeepTheLiveRateWhileADrainAtTheCeilingTakesOnlyTheSlack() throws Exception {
        double headroom = shipped(SourceRequestThrottle.HEADROOM_PROPERTY);
        int reserve = (int) shipped(SourceRequestThrottle.LIVE_RESERVE_PROPERTY);
        for (int i = 0; i < 200; i++) {
            failed("gone-" + i + ".pdf");
        }
        try (Database liveProcess = Database.open(postgres.jdbcUrl(), postgres.user(), postgres.password());
             Database drainProcess = Database.open(postgres.jdbcUrl(), postgres.user(), postgres.password())) {
            SourceConnector liveConnector = SourceRequestThrottle.sharedInPostgres(liveProcess.dataSource(),
                    CEILING_PER_S, headroom, reserve).around(new HttpConnector("http", HTTP));
            double alone = liveRate(liveConnector, "alone");

            Drain drain = drain(SourceRequestThrottle.sharedInPostgres(drainProcess.dataSource(), CEILING_PER_S,
                    headroom, reserve));
            AtomicReference<DrainReport> report = new AtomicReference<>();
            Thread draining = new Thread(() -> report.set(drain.run(
                    new Drain.Request(COHORT, null, null, 200, CEILING_PER_S, "test"), (d, of) -> { })));
            draining.start();
            Thread.sleep(1000); // the drain at its pace before the live path starts again
            long drainBefore = drained.size();
            double beside = liveRate(liveConnector, "beside");
            long drainDuring = drained.size() - drainBefore;
            draining.interrupt();
            draining.join();

            assertThat(report.get().interrupted()).as("the drain still ran when the live path finished").isTrue();
            assertThat(drainDuring).as("the drain took the slack while the live path ran").isGreaterThan(0);
            assertThat(beside / alone).as("live rate beside a drain (%.2f/s) over alone (%.2f/s)", beside, alone)
                    .isGreaterThanOrEqualTo(LIVE_SHARE_KEPT);
            List<Long> all = new ArrayList<>(live);
            all.addAll(drained);
            assertThat(ArrivalWindows.maxInAnySecond(all)).isLessThanOrEqualTo((int) CEILING_PER_S);
        }
    }

    /** @return live requests per second at the server: HEAD and GET per document, then the document's work */
    private double liveRate(SourceConnector connector, String round) throws Exception {
        int before = live.size();
        for (int i = 0; i < LIVE_DOCUMENTS; i++) {
            URI uri = base.resolve("live-" + round + "-" + i + ".pdf");
            connector.head(uri, access().guard("web"));
            Path work = Files.createTempFile(temp, "live-", ".bin");
            connector.fetch(uri, work, 1_000_000, access().guard("web"));
            Thread.sleep(LIVE_WORK.toMillis());
        }
        List<Long> arrivals = new ArrayList<>(live.subList(before, live.size()));
        assertThat(arrivals).hasSize(2 * LIVE_DOCUMENTS);
        Collections.sort(arrivals);
        // first arrival to the first arrival of a next document, had there been one: whole documents' cycles
        double seconds = (arrivals.get(arrivals.size() - 1) - arrivals.get(0)) / 1e9 + LIVE_WORK.toNanos() / 1e9;
        return arrivals.size() / seconds;
    }

    private static double shipped(String property) {
        return Double.parseDouble(ShippedProperties.lookup().apply(property).orElseThrow());
    }

    private void failed(String docId) {
        new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")), Clock.systemUTC())
                .record(FailureEvidence.builder("web", docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                        .errorFingerprint(COHORT).parserVersion("pdfbox-old").sourceVersion("v1").build());
    }

    private Drain drain(SourceRequestThrottle shared) {
        Embedder embedder = new TwoDimensionEmbedder();
        return Drain.builder()
                .database(dataSource(), new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")),
                        Clock.systemUTC()))
                .access(access())
                .connectors(Map.of("http", new HttpConnector("http", HTTP)))
                .pipeline(new NoParser(), new WindowChunker(1000, 256, 20, s -> s.split("\\s+").length), embedder,
                        new DocumentIndex(dataSource(), 2), new PipelineVersions(Map.of("http", "test"),
                                ParserVersion.CURRENT, "window-test", embedder.version()))
                .baseUris(source -> Optional.of(base))
                .throttle(shared, shipped(SourceRequestThrottle.HEADROOM_PROPERTY))
                .work(temp.resolve("work"), 1_000_000).build();
    }

    private SourceAccess access() {
        Properties p = new Properties();
        p.setProperty("sources.web.http-allow", base.getScheme() + "://" + base.getAuthority());
        p.setProperty("sources.web.http-allow-private", "true");
        return SourceAccess.fromProperties(p);
    }

    /** The drain's cohort is gone at the source: nothing is ever parsed. */
    private static final class NoParser implements org.ingestquarantine.parse.DocumentParser {
        @Override
        public org.ingestquarantine.parse.ParsedDocument parse(Path pdf) throws ParseException {
            throw new AssertionError("nothing is parsed here");
        }

        @Override
        public void close() {
        }
    }
}
