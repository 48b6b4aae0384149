package org.ingestquarantine.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.time.Clock;
import java.time.Duration;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.operator.CanaryPolicy;
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.ingest.FolderLister;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceListing;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.testsupport.FolderDrains;
import org.ingestquarantine.testsupport.ParsePool;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the HTTP API answers the operator's questions on loopback, only with the bearer token, with clear statuses;
 * and that its actions (dispose, canary drain) are two steps, a preview whose confirmation the action must bring
 * back, refused (409, nothing changed) when the selection changed since, each recorded in the actions trail.
 */
class OperatorApiIT extends PostgresTestBase {

    private static final String TOKEN = "s3cret-token-of-the-api-test";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ApiLimits LIMITS = ApiLimits.from(new Settings(ShippedProperties.lookup()));
    /** The canaries of this test: at most 3 records, at 50 source requests a second. */
    private static final CanaryPolicy CANARY = new CanaryPolicy(3, 50);
    @RegisterExtension
    static final ParsePool PARSER = new ParsePool();

    @TempDir
    Path temp;

    private QuarantineStore store;
    private OperatorApi api;
    private OperatorService service;
    private Dispositions dispositions;
    private OperatorActions actions;
    private OperatorRegisters registers;
    private SourceCounts counts;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void setUp() throws Exception {
        LocalPayloadStore payloads = new LocalPayloadStore(temp);
        store = new QuarantineStore(dataSource(), payloads, Clock.systemUTC());
        OperatorService service = new OperatorService(dataSource(), store, payloads, Clock.systemUTC(),
                List.of("folder", "web"));
        // a folder source: two documents and one in a subfolder; a link is not counted
        Path docs = Files.createDirectories(temp.resolve("docs/sub"));
        Files.writeString(temp.resolve("docs/a.pdf"), "a");
        Files.writeString(temp.resolve("docs/b.pdf"), "b");
        Files.writeString(docs.resolve("c.pdf"), "c");
        Files.createSymbolicLink(temp.resolve("docs/link.pdf"), temp.resolve("docs/a.pdf"));
        java.util.Properties roots = new java.util.Properties();
        roots.setProperty("sources.folder.file-roots", temp.resolve("docs").toString());
        roots.setProperty("sources.web.http-allow", "https://example.org/");
        SourceTotals totals = new SourceTotals(dataSource(), Clock.systemUTC());
        SourceCounts counts = new SourceCounts(service, new SourceListing(List.of(new FolderLister(
                SourceAccess.fromProperties(roots), 1000)), totals), totals);
        this.service = service;
        this.counts = counts;
        dispositions = new Dispositions(dataSource(), store, payloads, Clock.systemUTC());
        registers = new OperatorRegisters(dataSource());
        // the contracts' folder: lease-0 parses now, lease-1 and lease-2 are gone
        Path contracts = Files.createDirectories(temp.resolve("contracts/2026"));
        Files.write(contracts.resolve("lease-0.pdf"), TextPdf.of("the lease, readable now"));
        var drain = FolderDrains.of(dataSource(), store, PARSER.parser(),
                java.util.Map.of("contracts", temp.resolve("contracts")), temp.resolve("work"));
        actions = new OperatorActions(dataSource(), dispositions, Clock.systemUTC(), 25).withCanaries(() -> drain, CANARY);
        api = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), new OperatorApi.Backend(service, actions,
                registers, counts, new org.ingestquarantine.operator.Storms(new org.ingestquarantine.delivery.SourcePauses(
                        dataSource(), Clock.systemUTC()))), TOKEN, Duration.ofDays(90), LIMITS);
        for (int i = 0; i < 3; i++) {
            store.record(FailureEvidence.builder("contracts", "2026/lease-" + i + ".pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                    .errorFingerprint("fp-1").parserVersion("p-old").build());
        }
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void shouldListThePausedSourcesAndResumeOneAsTheStormCommandsDo() throws Exception {
        new org.springframework.jdbc.core.JdbcTemplate(dataSource()).update("TRUNCATE storm_pause");
        assertThat(post("/api/sources/folder/resume", "", TOKEN).statusCode()).as("not paused").isEqualTo(400);
        new org.ingestquarantine.delivery.SourcePauses(dataSource(), Clock.systemUTC()).trip(
                new org.ingestquarantine.delivery.Storm("folder", "fp-new", ErrorClass.PERMANENT_INPUT, "not_pdf", 18,
                        20, java.time.Instant.now()), "host/1", Duration.ofDays(30));

        JsonNode listed = JSON.readTree(get("/api/storms", TOKEN).body());
        assertThat(listed.at("/paused/0/source").asText()).isEqualTo("folder");
        assertThat(listed.at("/paused/0/fingerprint").asText()).isEqualTo("fp-new");
        assertThat(listed.at("/paused/0/failed").asInt()).isEqualTo(18);
        HttpResponse<String> resumed = post("/api/sources/folder/resume", "{\"resumed_by\": \"ana\"}", TOKEN);
        assertThat(resumed.statusCode()).as(resumed.body()).isEqualTo(200);
        assertThat(JSON.readTree(resumed.body()).at("/resumed/resumed_by").asText()).isEqualTo("api:ana");
        JsonNode after = JSON.readTree(get("/api/storms", TOKEN).body());
        assertThat(after.get("paused")).isEmpty();
        assertThat(after.at("/resumed/0/resumed_by").asText()).isEqualTo("api:ana");
        assertThat(post("/api/sources/folder/resume", "", null).statusCode()).isEqualTo(401);
    }

    @Test
    void shouldRefuseRequestsWithoutTheToken() throws Exception {
        assertThat(get("/api/stats", null).statusCode()).isEqualTo(401);
        HttpResponse<String> wrong = get("/api/stats", "not-it");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.headers().firstValue("WWW-Authenticate")).contains("Bearer");
        assertThat(wrong.body()).doesNotContain("contracts");
    }

    @Test
    void shouldTakeTheSchemeNameInAnyCase() throws Exception {
        for (String scheme : new String[] {"bearer", "BEARER", "Bearer"}) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri("/api/stats")).GET()
                    .header("Authorization", scheme + " " + TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as("status with scheme %s", scheme).isEqualTo(200);
        }
        HttpResponse<String> noScheme = client.send(HttpRequest.newBuilder(uri("/api/stats")).GET()
                .header("Authorization", TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(noScheme.statusCode()).isEqualTo(401);
    }

    @Test
    void shouldAnswerTheQuestionsAsTheCommandsDo() throws Exception {
        JsonNode stats = JSON.readTree(get("/api/stats", TOKEN).body());
        assertThat(stats.at("/total/documents").asInt()).isEqualTo(3);
        JsonNode cohorts = JSON.readTree(get("/api/cohorts?class=ambiguous_parse&limit=5", TOKEN).body());
        assertThat(cohorts.at("/cohorts/0/documents").asInt()).isEqualTo(3);
        assertThat(cohorts.at("/cohorts/0/stale_parser").asBoolean()).isTrue();
        assertThat(JSON.readTree(get("/api/coverage", TOKEN).body()).at("/sources/0/open_quarantined").asInt()).isEqualTo(3);
        HttpResponse<String> record = get("/api/records/" + URLEncoder.encode("contracts/2026/lease-1.pdf",
                StandardCharsets.UTF_8), TOKEN);
        assertThat(record.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(record.body()).at("/record/doc_id").asText()).isEqualTo("2026/lease-1.pdf");
        assertThat(get("/api/records/contracts/2026/lease-1.pdf", TOKEN).statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(get("/api/overdue?older_than_days=1", TOKEN).body()).get("documents").asInt()).isZero();
    }

    @Test
    void shouldListACohortsRecordsTheUnindexableRegisterAndTheDrainRuns() throws Exception {
        JsonNode records = JSON.readTree(get("/api/records?fingerprint=fp-1&parser_version=p-old&class=ambiguous_parse"
                + "&limit=2", TOKEN).body());
        assertThat(records.get("total").asInt()).isEqualTo(3);
        assertThat(records.get("cut").asInt()).isEqualTo(1);
        assertThat(records.at("/records/0/doc_id").asText()).isEqualTo("2026/lease-0.pdf");
        assertThat(records.get("drain_command").asText()).as("the drain the page suggests selects what it shows")
                .isEqualTo("bin/ingest-quarantine drain --fingerprint fp-1 --parser-version p-old --class ambiguous_parse"
                        + " --limit N --rate R");
        assertThat(JSON.readTree(get("/api/records?fingerprint=fp-1", TOKEN).body()).get("drain_command").asText())
                .isEqualTo("bin/ingest-quarantine drain --fingerprint fp-1 --limit N --rate R");
        assertThat(JSON.readTree(get("/api/records?fingerprint=fp-1&parser_version=p-new", TOKEN).body())
                .get("total").asInt()).isZero();
        assertThat(get("/api/records", TOKEN).statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(get("/api/unindexable", TOKEN).body()).get("cohorts")).isEmpty();
        new Dispositions(dataSource(), store, new LocalPayloadStore(temp), Clock.systemUTC())
                .disposeUnindexable("fp-1", "p-old", "vendor_format", "legal-ops");
        JsonNode register = JSON.readTree(get("/api/unindexable", TOKEN).body());
        assertThat(register.at("/cohorts/0/documents").asInt()).isEqualTo(3);
        assertThat(register.at("/cohorts/0/reason_code").asText()).isEqualTo("vendor_format");
        assertThat(JSON.readTree(get("/api/drains?limit=3", TOKEN).body()).get("runs")).isEmpty();
        assertThat(get("/api/unindexable", null).statusCode()).isEqualTo(401);
    }

    /**
     * A record's stack trace, read from the payload store: types and frames, every message left out (they may quote
     * the document); a record that keeps none says why; an unknown record is a 404.
     */
    @Test
    void shouldServeARecordsStackTraceWithTypesAndFramesOnly() throws Exception {
        String quoted = "Lessee shall return the premises broom-clean";
        var record = store.record(FailureEvidence.builder("contracts", "2026/traced.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .failure(new IllegalStateException("parse failed: " + quoted,
                        new java.io.IOException("Unknown operator '" + quoted + "'\nsecond line of it")))
                .parserVersion("p-old").build());

        HttpResponse<String> r = get("/api/records/" + record.dlqId() + "/stack-trace", TOKEN);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode trace = JSON.readTree(r.body());
        assertThat(trace.get("stored").asBoolean()).isTrue();
        assertThat(trace.get("stack_trace_uri").asText()).isEqualTo(record.stackTraceUri());
        assertThat(trace.get("stack_trace").asText())
                .startsWith("java.lang.IllegalStateException: [message left out]\n\tat org.ingestquarantine.web.OperatorApiIT.")
                .contains("\nCaused by: java.io.IOException: [message left out]\n")
                .doesNotContain(quoted).doesNotContain("second line").doesNotContain("Unknown operator");
        assertThat(get("/api/records/" + URLEncoder.encode("contracts/2026/traced.pdf", StandardCharsets.UTF_8)
                + "/stack-trace", TOKEN).body()).as("named by source/doc_id").isEqualTo(r.body());
        assertThat(get("/api/records/contracts/2026/traced.pdf/stack-trace", TOKEN).body()).isEqualTo(r.body());

        JsonNode none = JSON.readTree(get("/api/records/contracts/2026/lease-0.pdf/stack-trace", TOKEN).body());
        assertThat(none.get("stored").asBoolean()).isFalse();
        assertThat(none.get("why").asText()).isEqualTo("none recorded");
        assertThat(none.get("stack_trace").isNull()).isTrue();
        assertThat(get("/api/records/contracts/none.pdf/stack-trace", TOKEN).statusCode()).isEqualTo(404);
        assertThat(get("/api/records//stack-trace", TOKEN).statusCode()).isEqualTo(400);
        assertThat(get("/api/records/" + record.dlqId() + "/stack-trace", null).statusCode()).isEqualTo(401);
    }

    /** The record's JSON carries its replay history: 0 and nulls until a drain replays it, then the last run's. */
    @Test
    void shouldGiveARecordsReplayHistory() throws Exception {
        JsonNode before = JSON.readTree(get("/api/records/contracts/2026/lease-0.pdf", TOKEN).body()).get("record");
        assertThat(before.get("replay_count").asInt()).isZero();
        assertThat(before.get("last_replayed_at").isNull()).isTrue();
        assertThat(before.get("last_drain_run_id").isNull()).isTrue();
        try (var c = dataSource().getConnection(); var s = c.createStatement()) {
            s.execute("INSERT INTO drain_runs (run_id, started_by, started_at, error_fingerprint, limit_documents,"
                    + " rate_per_s, cohort_documents, selected) VALUES ('01JD0000000000000000000009', 'ops',"
                    + " '2026-03-01T10:00:00Z', 'fp-1', 3, 2, 3, 3)");
            // as the drain leaves a record it replayed twice (DrainIT drives the drain itself)
            s.execute("UPDATE quarantine SET replay_count = 2, last_replayed_at = '2026-03-01T10:00:05Z',"
                    + " last_drain_run_id = '01JD0000000000000000000009' WHERE doc_id = '2026/lease-0.pdf'");
        }

        JsonNode after = JSON.readTree(get("/api/records/contracts/2026/lease-0.pdf", TOKEN).body()).get("record");

        assertThat(after.get("replay_count").asInt()).isEqualTo(2);
        assertThat(after.get("last_replayed_at").asText()).isEqualTo("2026-03-01T10:00:05Z");
        assertThat(after.get("last_drain_run_id").asText()).isEqualTo("01JD0000000000000000000009");
    }

    /**
     * Owners as the API has them: each configured source's (coverage), each cohort's (its open records'), each
     * record's; and a cohort's records of one source, whose drain command selects that source only.
     */
    @Test
    void shouldNameOwnersAndListACohortsRecordsOfOneSource() throws Exception {
        QuarantineStore owned = new QuarantineStore(dataSource(), new LocalPayloadStore(temp),
                source -> java.util.Optional.ofNullable(java.util.Map.of("web", "web-team", "folder", "docs-team").get(source)),
                Clock.systemUTC());
        owned.record(FailureEvidence.builder("web", "w-1.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint("fp-1").parserVersion("p-old").build());
        OperatorService withOwners = service.withSourceOwners(
                source -> java.util.Optional.ofNullable(java.util.Map.of("web", "web-team", "folder", "docs-team").get(source)));
        try (OperatorApi owners = OperatorApi.start(new InetSocketAddress("127.0.0.1", 0), new OperatorApi.Backend(
                withOwners, actions, registers, counts), TOKEN, Duration.ofDays(90), LIMITS)) {
            String base = "http://127.0.0.1:" + owners.port();
            JsonNode coverage = JSON.readTree(get(URI.create(base + "/api/coverage")).body());
            assertThat(coverage.get("owners").toString()).isEqualTo("{\"folder\":\"docs-team\",\"web\":\"web-team\"}");
            JsonNode cohort = JSON.readTree(get(URI.create(base + "/api/cohorts")).body()).at("/cohorts/0");
            assertThat(cohort.get("documents").asInt()).isEqualTo(4);
            assertThat(cohort.get("owners").toString()).as("contracts names no owner")
                    .isEqualTo("[\"web-team\",\"" + OperatorService.UNOWNED + "\"]");
            assertThat(JSON.readTree(get(URI.create(base + "/api/cohorts?source=web")).body()).at("/cohorts/0/owners")
                    .toString()).isEqualTo("[\"web-team\"]");

            JsonNode web = JSON.readTree(get(URI.create(base + "/api/records?fingerprint=fp-1&source=web")).body());
            assertThat(web.get("total").asInt()).isEqualTo(1);
            assertThat(web.get("source").asText()).isEqualTo("web");
            assertThat(web.at("/records/0/owner").asText()).isEqualTo("web-team");
            assertThat(web.get("drain_command").asText())
                    .isEqualTo("bin/ingest-quarantine drain --fingerprint fp-1 --source web --limit N --rate R");
            JsonNode all = JSON.readTree(get(URI.create(base + "/api/records?fingerprint=fp-1")).body());
            assertThat(all.get("total").asInt()).isEqualTo(4);
            assertThat(all.at("/records/0/owner").isNull()).isTrue();
            assertThat(JSON.readTree(get(URI.create(base + "/api/records?fingerprint=fp-1&source=folder")).body())
                    .get("total").asInt()).as("a configured source without records").isZero();
            HttpResponse<String> unknown = get(URI.create(base + "/api/records?fingerprint=fp-1&source=nosuch"));
            assertThat(unknown.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(unknown.body()).get("error").asText()).startsWith("unknown source 'nosuch'");
        }
    }

    private HttpResponse<String> get(URI uri) throws Exception {
        return client.send(HttpRequest.newBuilder(uri).GET().header("Authorization", "Bearer " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldServeThePageWithoutTheTokenAndWithoutData() throws Exception {
        HttpResponse<String> page = get("/", null);
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/html"));
        assertThat(page.headers().firstValue("Content-Security-Policy")).contains(SecurityHeaders.POLICY);
        assertThat(page.body()).contains("/page.js").doesNotContain("contracts");
        assertThat(get("/page.js", null).statusCode()).isEqualTo(200);
        assertThat(get("/page.css", null).statusCode()).isEqualTo(200);
        assertThat(get("/etc/passwd", null).statusCode()).isEqualTo(404);
        assertThat(get("/../pom.xml", null).statusCode()).isEqualTo(404);
    }

    /**
     * Fifty clients each sending their request's header a byte a second (a slow-loris attack) hold no thread of the
     * server: a client with the token is answered meanwhile, each time in under a second (the bound asserted is
     * twice that, for a loaded machine; the times are printed).
     */
    @Test
    void shouldAnswerWhileFiftySlowClientsDripTheirHeaders() throws Exception {
        assertThat(get("/api/stats", TOKEN).statusCode()).isEqualTo(200); // warm
        List<java.net.Socket> slow = new java.util.ArrayList<>();
        var drip = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        try {
            for (int i = 0; i < 50; i++) {
                slow.add(new java.net.Socket("127.0.0.1", api.port()));
            }
            byte[] header = ("GET /api/stats HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            int[] sent = {0};
            drip.scheduleAtFixedRate(() -> {
                for (java.net.Socket s : slow) {
                    try {
                        s.getOutputStream().write(header[sent[0] % header.length]);
                        s.getOutputStream().flush();
                    } catch (java.io.IOException closed) {
                        // the server may close it at its header deadline
                    }
                }
                sent[0]++;
            }, 0, 1, java.util.concurrent.TimeUnit.SECONDS);
            Thread.sleep(2500); // every slow client is in its header
            List<Long> millis = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                long t0 = System.nanoTime();
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri("/api/stats")).GET()
                        .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + TOKEN).build(),
                        HttpResponse.BodyHandlers.ofString());
                millis.add((System.nanoTime() - t0) / 1_000_000);
                assertThat(r.statusCode()).isEqualTo(200);
                Thread.sleep(500);
            }
            System.out.println("API answered beside 50 slow clients in " + millis + " ms");
            assertThat(millis).allSatisfy(ms -> assertThat(ms).isLessThan(2000L));
        } finally {
            drip.shutdownNow();
            for (java.net.Socket s : slow) {
                s.close();
            }
        }
    }

    @Test
    void shouldPutTheSecurityPolicyOnEveryApiAnswer() throws Exception {
        for (HttpResponse<String> r : List.of(get("/api/stats", TOKEN), get("/api/stats", null),
                get("/api/nothing", TOKEN), get("/api/cohorts?class=flaky", TOKEN), get("/api/dispose", TOKEN),
                get("/nothing", null))) {
            assertThat(r.headers().firstValue("Content-Security-Policy")).as(r.uri() + " " + r.statusCode())
                    .contains(SecurityHeaders.POLICY);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        }
    }

    @Test
    void shouldRefuseATokenShorterThanTheLeastLengthNamingTheSetting() {
        OperatorApi.Backend backend = new OperatorApi.Backend(service, actions, registers, counts);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> OperatorApi.start(
                        new InetSocketAddress("127.0.0.1", 0), backend, "x", Duration.ofDays(90), LIMITS))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("operator.api-token is too short (1 characters); set one of at least 16")
                .hasMessageNotContaining("\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> OperatorApi.start(
                        new InetSocketAddress("127.0.0.1", 0), backend, "fifteen-chars-x", Duration.ofDays(90), LIMITS))
                .hasMessageContaining("operator.api-token-min-chars");
    }

    @Test
    void shouldSayWhatIsWrongWithAStatusAndOneLine() throws Exception {
        HttpResponse<String> unknown = get("/api/records/contracts/none.pdf", TOKEN);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(JSON.readTree(unknown.body()).get("error").asText()).startsWith("no quarantine record contracts/none.pdf");
        assertThat(get("/api/cohorts?class=flaky", TOKEN).statusCode()).isEqualTo(400);
        // an unknown source is refused as an unknown class is, naming it and the sources the data holds
        for (String route : new String[] {"/api/stats?source=nosuch", "/api/cohorts?source=nosuch"}) {
            HttpResponse<String> unknownSource = get(route, TOKEN);
            assertThat(unknownSource.statusCode()).as(route).isEqualTo(400);
            assertThat(JSON.readTree(unknownSource.body()).get("error").asText())
                    .isEqualTo("unknown source 'nosuch'; known sources: contracts, folder, web");
        }
        assertThat(get("/api/stats?source=contracts", TOKEN).statusCode()).isEqualTo(200);
        assertThat(get("/api/nothing", TOKEN).statusCode()).isEqualTo(404);
        assertThat(get("/api/dispose", TOKEN).statusCode()).isEqualTo(405);
    }

    /** A NUL or another control character in a name, an overlong owner: 400 saying so, never a database outage. */
    @Test
    void shouldRefuseUnprintableOrOverlongInputWith400() throws Exception {
        for (String route : new String[] {"/api/stats?source=%00", "/api/cohorts?source=a%0Ab", "/api/records?fingerprint=f%00"}) {
            HttpResponse<String> r = get(route, TOKEN);
            assertThat(r.statusCode()).as(route).isEqualTo(400);
            assertThat(JSON.readTree(r.body()).get("error").asText()).as(route).contains("holds a control character");
        }
        for (String body : new String[] {"{\"fingerprint\": \"fp-1\", \"reason\": \"x\", \"owner\": \"" + "o".repeat(3000) + "\"}",
                "{\"fingerprint\": \"fp-1\", \"reason\": \"x\", \"owner\": \"te\\u0007am\"}",
                "{\"fingerprint\": \"fp\\u0000\", \"reason\": \"x\", \"owner\": \"team\"}"}) {
            HttpResponse<String> r = post("/api/dispose", body, TOKEN);
            assertThat(r.statusCode()).as(body.substring(0, 40)).isEqualTo(400);
            assertThat(r.body()).doesNotContain("ooooo").doesNotContain("\u0007");
        }
        assertThat(JSON.readTree(get("/api/unindexable", TOKEN).body()).get("cohorts")).as("nothing disposed").isEmpty();
    }

    /** A refused value is named as the API names it (its JSON field or query parameter), never as a command option. */
    @Test
    void shouldWordRefusalsInTheApisTerms() throws Exception {
        HttpResponse<String> noReason = post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"owner\": \"team\","
                + " \"actor\": \"alice\"}", TOKEN);
        assertThat(noReason.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(noReason.body()).get("error").asText())
                .isEqualTo("reason is required and must not be blank");
        HttpResponse<String> longOwner = post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"x\", \"owner\": \""
                + "o".repeat(300) + "\", \"actor\": \"alice\"}", TOKEN);
        assertThat(JSON.readTree(longOwner.body()).get("error").asText()).startsWith("owner is 300 characters long");
        HttpResponse<String> noActor = post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"x\","
                + " \"owner\": \"team\"}", TOKEN);
        assertThat(JSON.readTree(noActor.body()).get("error").asText()).isEqualTo("actor is required and must not be blank");
        assertThat(JSON.readTree(get("/api/cohorts?limit=0", TOKEN).body()).get("error").asText())
                .isEqualTo("limit must be at least 1, was 0");
        for (HttpResponse<String> r : List.of(noReason, longOwner, noActor, get("/api/cohorts?limit=0", TOKEN))) {
            assertThat(r.body()).as("no command-line wording").doesNotContain("--");
        }
    }

    /** A malformed record reference is the caller's mistake: 400 with one JSON line saying what is wrong. */
    @Test
    void shouldRefuseAMalformedRecordReferenceWith400AndAJsonError() throws Exception {
        for (String ref : new String[] {"nonsense", "contracts%2F", "contracts%2Flease%00.pdf", "contracts/a%0Ab.pdf", ""}) {
            HttpResponse<String> r = get("/api/records/" + ref, TOKEN);
            assertThat(r.statusCode()).as(ref).isEqualTo(400);
            assertThat(r.headers().firstValue("Content-Type")).as(ref).contains("application/json");
            String error = JSON.readTree(r.body()).get("error").asText();
            assertThat(error).as(ref).isNotBlank().doesNotContain("\n").doesNotContain("Exception");
            assertThat(error).as(ref).containsAnyOf("names no record", "name a record");
        }
    }

    /** Durations stay ISO-8601 strings (compatible) and gain a number of seconds beside them, for scripts. */
    @Test
    void shouldGiveEveryDurationAlsoInSeconds() throws Exception {
        JsonNode row = JSON.readTree(get("/api/coverage", TOKEN).body()).at("/sources/0");
        assertThat(row.get("oldest_open_age").isTextual()).isTrue();
        assertThat(Duration.parse(row.get("oldest_open_age").asText())).isNotNull();
        // whole seconds: an integer, and the ISO form without a fraction (the store's ages are in microseconds)
        assertThat(row.get("oldest_open_age_seconds").isIntegralNumber()).as(row.toString()).isTrue();
        assertThat(row.get("oldest_open_age").asText()).doesNotContain(".");
        assertThat(row.get("oldest_open_age_seconds").asLong())
                .isEqualTo(Duration.parse(row.get("oldest_open_age").asText()).getSeconds());
        // a fraction is dropped (rounded down), never written as a double in exponent form
        String aged = OperatorJson.write(new org.ingestquarantine.operator.CoverageRow("s", null, null, null, null, 0, 0, 0, 0, 0, 0, null, null, null,
                Duration.ofSeconds(34_560_041, 820_295_957), null));
        assertThat(aged).contains("\"oldest_open_age\":\"PT9600H41S\",\"oldest_open_age_seconds\":34560041")
                .doesNotContain("E7");
        assertThat(OperatorJson.write(java.util.Map.of("older_than", Duration.ofMillis(1500)))).isEqualTo(
                "{\"older_than\":\"PT1S\"}");
        assertThat(OperatorJson.write(new org.ingestquarantine.operator.CoverageRow("s", null, null, null, null, 0, 0, 0, 0, 0, 0, null, null, null,
                Duration.ofHours(1), null))).contains("\"oldest_open_age\":\"PT1H\",\"oldest_open_age_seconds\":3600");
        assertThat(OperatorJson.write(new org.ingestquarantine.operator.CoverageRow("s", null, null, null, null, 0, 0, 0, 0, 0, 0, null, null, null,
                null, null))).contains("\"oldest_open_age\":null,\"oldest_open_age_seconds\":null");
    }

    /**
     * A dispose is two steps: the preview counts the selection per source and gives a confirmation; the dispose
     * without it, or without an actor, is refused (400) and changes nothing; with it, it moves exactly the previewed
     * records and answers its trail entry, which /api/actions lists.
     */
    @Test
    void shouldDisposeACohortOnlyWithItsPreviewsConfirmation() throws Exception {
        JsonNode p = ok(post("/api/dispose/preview", "{\"fingerprint\": \"fp-1\", \"class\": \"ambiguous_parse\"}",
                TOKEN));
        assertThat(p.get("records").asInt()).isEqualTo(3);
        assertThat(p.get("records_by_source").toString()).isEqualTo("{\"contracts\":3}");
        assertThat(p.at("/selection/fingerprint").asText()).isEqualTo("fp-1");
        assertThat(p.at("/selection/error_class").asText()).isEqualTo("ambiguous_parse");
        String confirmation = p.get("confirmation").asText();
        assertThat(confirmation).startsWith("3.");

        HttpResponse<String> unconfirmed = post("/api/dispose", dispose(null, "alice"), TOKEN);
        assertThat(unconfirmed.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(unconfirmed.body()).get("error").asText()).startsWith("confirmation is required");
        assertThat(post("/api/dispose", dispose(confirmation, null), TOKEN).statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(get("/api/actions", TOKEN).body()).get("actions")).as("bad input: no entry").isEmpty();
        assertThat(store.find("contracts", "2026/lease-0.pdf").orElseThrow().disposition()).isEqualTo(Disposition.OPEN);

        JsonNode answer = ok(post("/api/dispose", dispose(confirmation, "alice"), TOKEN));

        assertThat(answer.get("unindexable").asInt()).isEqualTo(3);
        assertThat(store.find("contracts", "2026/lease-0.pdf").orElseThrow().disposition()).isEqualTo(Disposition.UNINDEXABLE);
        JsonNode entry = answer.get("action");
        assertThat(entry.get("action").asText()).isEqualTo("dispose");
        assertThat(entry.get("actor").asText()).isEqualTo("alice");
        assertThat(entry.get("channel").asText()).isEqualTo("page");
        assertThat(entry.get("status").asText()).isEqualTo("finished");
        assertThat(entry.get("selected").asInt()).isEqualTo(3);
        assertThat(entry.get("outcome_counts").toString()).isEqualTo("{\"unindexable\":3}");
        assertThat(entry.get("selection").toString()).isEqualTo("{\"fingerprint\":\"fp-1\",\"parser_version\":null,"
                + "\"error_class\":\"ambiguous_parse\",\"source\":null,\"limit\":null}");
        assertThat(entry.get("reason_code").asText()).isEqualTo("vendor_format");
        assertThat(entry.get("owner").asText()).isEqualTo("legal-ops");
        assertThat(entry.get("finished_at").isTextual()).isTrue();
        JsonNode trail = JSON.readTree(get("/api/actions", TOKEN).body()).get("actions");
        assertThat(trail).hasSize(1);
        assertThat(trail.get(0)).isEqualTo(entry);
    }

    /**
     * The confirmation binds the selection and its count: a record joining the cohort since the preview, a
     * confirmation of another selection or action, or one altered, is refused with 409 and a line saying so; no record
     * changes, and the trail records the refusal.
     */
    @Test
    void shouldRefuseAConfirmationWhenTheSelectionOrItsCountChanged() throws Exception {
        String confirmation = JSON.readTree(post("/api/dispose/preview", "{\"fingerprint\": \"fp-1\"}", TOKEN).body())
                .get("confirmation").asText();
        String ofOldParser = JSON.readTree(post("/api/dispose/preview", "{\"fingerprint\": \"fp-1\", \"parser_version\":"
                + " \"p-old\"}", TOKEN).body()).get("confirmation").asText();
        store.record(FailureEvidence.builder("contracts", "2026/lease-9.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint("fp-1").parserVersion("p-old").build());
        String before = checksum();

        HttpResponse<String> grown = post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"vendor_format\","
                + " \"owner\": \"legal-ops\", \"actor\": \"alice\", \"confirmation\": \"" + confirmation + "\"}", TOKEN);
        HttpResponse<String> otherSelection = post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"r\","
                + " \"owner\": \"o\", \"actor\": \"alice\", \"confirmation\": \"" + ofOldParser + "\"}", TOKEN);
        HttpResponse<String> altered = post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"r\","
                + " \"owner\": \"o\", \"actor\": \"alice\", \"confirmation\": \"4" + confirmation.substring(1) + "\"}",
                TOKEN);
        HttpResponse<String> otherAction = post("/api/drain", "{\"fingerprint\": \"fp-1\", \"limit\": 2,"
                + " \"actor\": \"alice\", \"confirmation\": \"" + confirmation + "\"}", TOKEN);

        assertThat(grown.statusCode()).as(grown.body()).isEqualTo(409);
        assertThat(JSON.readTree(grown.body()).get("error").asText()).isEqualTo("the selection holds 4 open records now,"
                + " not the 3 previewed (records arrived or were closed since); nothing was changed: preview it again");
        for (HttpResponse<String> r : List.of(otherSelection, altered, otherAction)) {
            assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
            assertThat(JSON.readTree(r.body()).get("error").asText()).startsWith("the confirmation does not match this");
        }
        assertThat(checksum()).as("no record changed").isEqualTo(before);
        JsonNode trail = JSON.readTree(get("/api/actions", TOKEN).body()).get("actions");
        assertThat(trail).hasSize(4).allSatisfy(e -> {
            assertThat(e.get("status").asText()).isEqualTo("refused");
            assertThat(e.get("selected").isNull()).isTrue();
        });
        assertThat(trail.get(3).get("error").asText()).startsWith("the selection holds 4 open records now");
        assertThat(trail.get(0).get("action").asText()).as("newest first").isEqualTo("drain");
    }

    /**
     * A canary drain from the API: the preview shows the selection per source, its ids and the forecast, its limit
     * required and capped; confirmed, it runs within the request at the canary's rate and answers its counts and trail
     * entry, the run in /api/drains started by api:&lt;actor&gt;. Its confirmation does not serve twice: the cohort
     * shrank.
     */
    @Test
    void shouldRunACanaryDrainItsPreviewConfirmed() throws Exception {
        HttpResponse<String> noLimit = post("/api/drain/preview", "{\"fingerprint\": \"fp-1\"}", TOKEN);
        assertThat(noLimit.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(noLimit.body()).get("error").asText())
                .isEqualTo("limit is required: the canary's size, at most 3 (operator.api-drain-max-records)");
        HttpResponse<String> tooMany = post("/api/drain/preview", "{\"fingerprint\": \"fp-1\", \"limit\": 4}", TOKEN);
        assertThat(JSON.readTree(tooMany.body()).get("error").asText()).startsWith("limit must be at most 3");
        JsonNode p = ok(post("/api/drain/preview", "{\"fingerprint\": \"fp-1\", \"parser_version\": \"p-old\","
                + " \"limit\": 2}", TOKEN));
        assertThat(p.at("/plan/cohort_documents").asInt()).isEqualTo(3);
        assertThat(p.at("/plan/selected_by_source").toString()).isEqualTo("{\"contracts\":2}");
        assertThat(p.at("/plan/dlq_ids")).hasSize(2);
        assertThat(p.at("/plan/source_requests").asInt()).isEqualTo(4);
        assertThat(p.get("rate_per_s").asDouble()).isEqualTo(50);
        assertThat(p.get("max_limit").asInt()).isEqualTo(3);
        String confirmation = p.get("confirmation").asText();
        assertThat(JSON.readTree(get("/api/drains", TOKEN).body()).get("runs")).as("a preview writes nothing").isEmpty();

        JsonNode answer = ok(post("/api/drain", "{\"fingerprint\": \"fp-1\", \"parser_version\": \"p-old\","
                + " \"limit\": 2, \"actor\": \"bob\", \"confirmation\": \"" + confirmation + "\"}", TOKEN));

        assertThat(answer.at("/report/outcomes").toString())
                .isEqualTo("{\"deleted_at_source\":1,\"repaired_parser_fixed\":1}");
        assertThat(store.find("contracts", "2026/lease-0.pdf").orElseThrow().disposition())
                .isEqualTo(Disposition.REPAIRED_PARSER_FIXED);
        assertThat(store.find("contracts", "2026/lease-2.pdf").orElseThrow().disposition()).isEqualTo(Disposition.OPEN);
        JsonNode entry = answer.get("action");
        assertThat(entry.get("action").asText()).isEqualTo("drain");
        assertThat(entry.get("channel").asText()).isEqualTo("api");
        assertThat(entry.get("selected").asInt()).isEqualTo(2);
        assertThat(entry.at("/selection/limit").asInt()).isEqualTo(2);
        assertThat(entry.at("/selection/parser_version").asText()).isEqualTo("p-old");
        assertThat(entry.get("outcome_counts")).isEqualTo(answer.at("/report/outcomes"));
        assertThat(entry.get("verdict_counts").toString()).isEqualTo("{\"repaired_parser_fixed by=none\":1}");
        assertThat(entry.get("drain_run_id").asText()).isEqualTo(answer.at("/report/run_id").asText());
        JsonNode run = JSON.readTree(get("/api/drains", TOKEN).body()).at("/runs/0");
        assertThat(run.get("run_id").asText()).isEqualTo(entry.get("drain_run_id").asText());
        assertThat(run.get("started_by").asText()).isEqualTo("api:bob");
        assertThat(run.get("rate_per_s").asDouble()).isEqualTo(50);

        HttpResponse<String> again = post("/api/drain", "{\"fingerprint\": \"fp-1\", \"parser_version\": \"p-old\","
                + " \"limit\": 2, \"actor\": \"bob\", \"confirmation\": \"" + confirmation + "\"}", TOKEN);
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(JSON.readTree(again.body()).get("error").asText()).startsWith("the selection holds 1 open records now,"
                + " not the 3 previewed");
        assertThat(JSON.readTree(get("/api/drains", TOKEN).body()).get("runs")).as("no second run").hasSize(1);
    }

    /** /api/actions lists the trail newest first, cut by limit; a limit below 1 is refused. */
    @Test
    void shouldListTheTrailNewestFirst() throws Exception {
        for (String parser : new String[] {"p-old", "p-none"}) {
            post("/api/dispose/preview", "{\"fingerprint\": \"fp-1\", \"parser_version\": \"" + parser + "\"}", TOKEN);
        }
        String confirmation = JSON.readTree(post("/api/dispose/preview", "{\"fingerprint\": \"fp-1\"}", TOKEN).body())
                .get("confirmation").asText();
        assertThat(post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"r\", \"owner\": \"o\","
                + " \"actor\": \"first\", \"confirmation\": \"x.y\"}", TOKEN).statusCode()).isEqualTo(409);
        assertThat(post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"r\", \"owner\": \"o\","
                + " \"actor\": \"second\", \"channel\": \"api\", \"confirmation\": \"" + confirmation + "\"}", TOKEN)
                .statusCode()).isEqualTo(200);

        JsonNode all = JSON.readTree(get("/api/actions", TOKEN).body()).get("actions");
        assertThat(all).as("previews are no actions").hasSize(2);
        assertThat(all.get(0).get("actor").asText()).isEqualTo("second");
        assertThat(all.get(1).get("actor").asText()).isEqualTo("first");
        JsonNode one = JSON.readTree(get("/api/actions?limit=1", TOKEN).body()).get("actions");
        assertThat(one).hasSize(1);
        assertThat(one.get(0).get("actor").asText()).isEqualTo("second");
        assertThat(get("/api/actions?limit=0", TOKEN).statusCode()).isEqualTo(400);
        assertThat(get("/api/actions", null).statusCode()).isEqualTo(401);
        assertThat(post("/api/dispose", "{\"fingerprint\": \"fp-1\", \"reason\": \"r\", \"owner\": \"o\","
                + " \"actor\": \"x\", \"channel\": \"cli\", \"confirmation\": \"" + confirmation + "\"}", TOKEN)
                .statusCode()).as("the CLI's channel is not the API's to state").isEqualTo(400);
    }

    /** @return the answer's JSON, asserting it is a 200 */
    private static JsonNode ok(HttpResponse<String> answer) throws Exception {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return JSON.readTree(answer.body());
    }

    private static String dispose(String confirmation, String actor) {
        return "{\"fingerprint\": \"fp-1\", \"class\": \"ambiguous_parse\", \"reason\": \"vendor_format\","
                + " \"owner\": \"legal-ops\", \"channel\": \"page\""
                + (actor == null ? "" : ", \"actor\": \"" + actor + "\"")
                + (confirmation == null ? "" : ", \"confirmation\": \"" + confirmation + "\"") + "}";
    }

    /** @return row counts and an md5 of every row of the records, their attempts and the drain runs */
    private static String checksum() throws Exception {
        StringBuilder b = new StringBuilder();
        for (String table : new String[] {"quarantine", "quarantine_attempt", "drain_runs", "drain_run_items"}) {
            b.append(new org.springframework.jdbc.core.JdbcTemplate(dataSource()).queryForObject("SELECT count(*) || ' ' || md5(coalesce("
                    + "string_agg(t::text, '|' ORDER BY t::text), '')) FROM " + table + " t", String.class))
                    .append('\n');
        }
        return b.toString();
    }

    /** POST /api/sources/S/count lists, POST .../total states; both refuse clearly, neither answers GET. */
    @Test
    void shouldListAFolderSourceAndRecordAStatedTotal() throws Exception {
        HttpResponse<String> listed = post("/api/sources/folder/count", "", TOKEN);
        assertThat(listed.statusCode()).as(listed.body()).isEqualTo(200);
        JsonNode total = JSON.readTree(listed.body());
        assertThat(total.get("documents").asLong()).isEqualTo(3);
        assertThat(total.get("obtained_by").asText()).isEqualTo("listed");
        assertThat(total.get("counted_by").asText()).isEqualTo("folder-1");
        JsonNode folder = coverageOf("folder");
        assertThat(folder.get("total").asLong()).isEqualTo(3);
        assertThat(folder.get("total_by").asText()).isEqualTo("listed");
        assertThat(folder.get("unseen").asLong()).isEqualTo(3);
        assertThat(folder.get("coverage").asDouble()).isZero();

        HttpResponse<String> web = post("/api/sources/web/count", "", TOKEN);
        assertThat(web.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(web.body()).get("error").asText())
                .isEqualTo("source 'web' cannot be listed: this configuration gives it no sources.web.file-roots or .s3-allow;"
                        + " state its total instead (sources set-total web N)");

        HttpResponse<String> stated = post("/api/sources/contracts/total", "{\"documents\": 4, \"stated_by\": \"intake\"}",
                TOKEN);
        assertThat(stated.statusCode()).as(stated.body()).isEqualTo(200);
        assertThat(JSON.readTree(stated.body()).get("counted_by").asText()).isEqualTo("api:intake");
        JsonNode contracts = coverageOf("contracts");
        assertThat(contracts.get("total_by").asText()).isEqualTo("stated");
        assertThat(contracts.get("total").asLong()).isEqualTo(4);
        assertThat(contracts.get("coverage").asDouble()).as("3 open of 4 stated").isZero();
        assertThat(contracts.get("unseen").asLong()).isEqualTo(1);

        HttpResponse<String> negative = post("/api/sources/contracts/total", "{\"documents\": -1}", TOKEN);
        assertThat(negative.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(negative.body()).get("error").asText())
                .isEqualTo("a source's total is 0 or more documents, not -1");
        HttpResponse<String> unknown = post("/api/sources/nope/total", "{\"documents\": 2}", TOKEN);
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(JSON.readTree(unknown.body()).get("error").asText()).startsWith("unknown source 'nope'; known sources:");
        assertThat(post("/api/sources/contracts/total", "{\"documents\": \"many\"}", TOKEN).statusCode()).isEqualTo(400);
        assertThat(post("/api/sources/contracts/total", "{\"documents\": 2}", null).statusCode()).isEqualTo(401);
        assertThat(get("/api/sources/contracts/total", TOKEN).statusCode()).isEqualTo(405);
        assertThat(coverageOf("contracts").get("total").asLong()).as("nothing refused was written").isEqualTo(4);
    }

    private JsonNode coverageOf(String source) throws Exception {
        for (JsonNode row : JSON.readTree(get("/api/coverage", TOKEN).body()).get("sources")) {
            if (row.get("source").asText().equals(source)) {
                return row;
            }
        }
        throw new AssertionError("no coverage row for " + source);
    }

    private HttpResponse<String> post(String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + api.port() + path);
    }

    private HttpResponse<String> get(String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).GET();
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
