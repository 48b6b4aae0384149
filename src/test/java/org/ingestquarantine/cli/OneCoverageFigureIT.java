package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.metrics.CoverageRatio;
import org.ingestquarantine.metrics.SkippedCoverage;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.metrics.StoreGauges;
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineQueries;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.ingestquarantine.web.ApiLimits;
import org.ingestquarantine.web.OperatorApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures one coverage figure: after a drain, an erasure, a disposal and skips by policy, the {@code coverage}
 * command, the API, the page, the {@code coverage_ratio} gauge and the ingest summary's query give the same ratio
 * and the same printed digits, and the denominator is printed as {@code documents}.
 */
class OneCoverageFigureIT extends PostgresTestBase {

    private static final String TOKEN = "one-coverage-figure-token";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** 21 stated, 2 skipped by policy (excluded): 19 documents; 9 indexed (one by a drain, one erased after). */
    private static final long DOCUMENTS = 19;
    private static final long INDEXED = 9;
    /** 9/19 = 0.4736...: floored to a tenth 47.3%, where rounding half-up would print 47.4%. */
    private static final String PERCENT = "47.3%";

    @TempDir
    Path data;

    private OperatorApi api;

    @BeforeEach
    void setUp() throws Exception {
        // the command reads the test's database as an external one
        java.util.Map.of("db.mode", "external", "db.url", postgres.jdbcUrl(), "db.user", postgres.user(),
                "db.password", postgres.password()).forEach(System::setProperty);
        Clock clock = Clock.systemUTC();
        LocalPayloadStore payloads = new LocalPayloadStore(data.resolve("objects"));
        QuarantineStore store = new QuarantineStore(dataSource(), payloads, clock);
        DocumentIndex index = new DocumentIndex(dataSource(), 2);
        JdbcTemplate jdbc = new JdbcTemplate(dataSource());
        new SourceTotals(dataSource(), clock).record("contracts", 21, "test", null);
        for (int i = 0; i < 10; i++) {
            index.index(doc("i" + i));
        }
        // a record a drain closed: its document indexed, the record repaired
        store.record(failure("i0", "fp-drained"));
        jdbc.update("UPDATE quarantine SET disposition = 'repaired_parser_fixed', closed_at = now()"
                + " WHERE doc_id = 'i0'");
        for (int i = 0; i < 3; i++) {
            store.record(failure("o" + i, "fp-open"));
        }
        for (int i = 0; i < 2; i++) {
            store.record(failure("u" + i, "fp-unindexable"));
        }
        Dispositions dispositions = new Dispositions(dataSource(), store, payloads, clock);
        dispositions.disposeUnindexable("fp-unindexable", null, "vendor_format", "legal-ops");
        dispositions.erase("contracts", "i9");
        for (int i = 0; i < 2; i++) {
            jdbc.update("INSERT INTO skipped_documents (source, doc_id, reason, attempt_id, skipped_at)"
                    + " VALUES ('contracts', ?, 'too_many_pages', ?, now())", "k" + i, 1000 + i);
        }
        OperatorService service = new OperatorService(dataSource(), store, payloads, clock, List.of("contracts"));
        SourceTotals totals = new SourceTotals(dataSource(), clock);
        api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), new OperatorApi.Backend(service,
                new org.ingestquarantine.operator.OperatorActions(dataSource(), dispositions, clock, 25),
                new OperatorRegisters(dataSource()), new SourceCounts(service, new org.ingestquarantine.ingest.SourceListing(List.of(), totals), totals)), TOKEN,
                Duration.ofDays(90), ApiLimits.from(new Settings(ShippedProperties.lookup())));
    }

    @AfterEach
    void tearDown() {
        api.close();
        for (String p : List.of("db.mode", "db.url", "db.user", "db.password")) {
            System.clearProperty(p);
        }
    }

    @Test
    void shouldGiveOneFigureInTheCommandTheApiThePageAndTheGauge() throws Exception {
        // the command: its table and its JSON; documents is the denominator
        String table = run("coverage", "--data-dir", data.toString());
        assertThat(table).containsPattern("contracts\\s+21\\s+ingest\\s+\\S+\\s+9\\s+3\\s+2\\s+1\\s+2\\s+\\d+\\s+19\\s+"
                + java.util.regex.Pattern.quote(PERCENT));
        JsonNode cli = row(JSON.readTree(run("coverage", "--json", "--data-dir", data.toString())));
        assertThat(cli.get("documents").asLong()).isEqualTo(DOCUMENTS);
        assertThat(cli.get("coverage").asDouble()).isEqualTo((double) INDEXED / DOCUMENTS);
        assertThat(cli.get("coverage_percent").asText()).isEqualTo(PERCENT);

        // the API: the same row, and the formula the page prints names erased and skipped
        HttpClient http = HttpClient.newHttpClient();
        JsonNode answer = JSON.readTree(get(http, "/api/coverage", true));
        JsonNode web = row(answer);
        assertThat(web.get("documents").asLong()).isEqualTo(DOCUMENTS);
        assertThat(web.get("coverage").asDouble()).isEqualTo(cli.get("coverage").asDouble());
        assertThat(web.get("coverage_percent").asText()).isEqualTo(PERCENT);
        assertThat(answer.get("formula").asText()).isEqualTo(SkippedCoverage.EXCLUDED.formula())
                .contains("erased", "skipped by policy", "total");

        // the page: it prints the API's coverage_percent and formula, no digits of its own making
        String script = get(http, "/page.js", false);
        assertThat(script).contains("s.coverage_percent", "coverage.formula").doesNotContain("toFixed", "s.coverage *", "s.coverage)");

        // the gauge and the ingest summary read the same query
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (StoreGauges gauges = StoreGauges.start(dataSource(), SourceTags.of(List.of("contracts")),
                registry, new StoreGauges.Windows(Duration.ofMillis(100), Duration.ofDays(1), Duration.ofDays(90)),
                new QuarantineQueries(dataSource()), Clock.systemUTC())) {
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(registry.find(StoreGauges.COVERAGE).tag("source", "contracts").gauge()).isNotNull());
            Gauge gauge = registry.find(StoreGauges.COVERAGE).tag("source", "contracts").gauge();
            assertThat(gauge.value()).isEqualTo(cli.get("coverage").asDouble());
            assertThat(CoverageRatio.percent(gauge.value())).isEqualTo(PERCENT);
        }
        assertThat(new QuarantineQueries(dataSource()).coverage(List.of("contracts"))).singleElement()
                .satisfies(c -> assertThat(c.coverage()).as("the ingest summary's").isEqualTo((double) INDEXED / DOCUMENTS));
    }

    private String get(HttpClient http, String path, boolean withToken) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path)).GET();
        if (withToken) {
            b.header("Authorization", "Bearer " + TOKEN);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        return r.body();
    }

    private static JsonNode row(JsonNode answer) {
        for (JsonNode r : answer.get("sources")) {
            if (r.get("source").asText().equals("contracts")) {
                return r;
            }
        }
        throw new AssertionError("no coverage row for contracts in " + answer);
    }

    private static FailureEvidence failure(String docId, String fingerprint) {
        return FailureEvidence.builder("contracts", docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint(fingerprint).parserVersion("p1").build();
    }

    private static IndexedDocument doc(String docId) {
        return new IndexedDocument("contracts", docId, "v1", java.time.Instant.parse("2026-01-01T00:00:00Z"), null,
                "p1", "c1", "e1", 1, List.of(new IndexedChunk(0, "text", new float[] {1, 0}, 1, 1)));
    }

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = IngestQuarantineCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        assertThat(code).as("exit code; stderr: %s", err).isZero();
        return out.toString();
    }
}
