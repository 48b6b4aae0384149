package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.camel.Exchange;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.ingest.HttpTimeouts;
import org.ingestquarantine.ingest.RepairClose;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.parse.ParseException;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.ArrivalWindows;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.TextPdf;
import org.ingestquarantine.testsupport.TwoDimensionEmbedder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a drain re-fetches from the source (a real HTTP server on 127.0.0.1 whose content and etags change,
 * and a folder whose files are replaced and deleted), closes exactly the repaired and deleted records, keeps the
 * failing ones open with a new attempt, fixes its selection at the start, and stays under its request rate as
 * seen by the server.
 */
class DrainIT extends PostgresTestBase {

    private static final HttpTimeouts HTTP = new HttpTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5),
            Duration.ofSeconds(30), 5);

    private static final String COHORT = "fp-cohort";
    /** The shipped default of source-requests.spacing-headroom-percent. */
    private static final double HEADROOM_PERCENT = 25;
    private static final String OLD_PARSER = "pdfbox-3.0.6+iq-parse-0";
    private static WorkerPoolParser pool;

    @TempDir
    Path temp;

    private HttpServer server;
    private final Map<String, Served> served = new ConcurrentHashMap<>();
    private final List<Long> requestNanos = Collections.synchronizedList(new ArrayList<>());
    /** Every request the server answered: method and request URI (path and query). */
    private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
    /** How long the server holds every answer, milliseconds (0: at once). */
    private volatile long answerDelayMillis;
    private QuarantineStore store;
    private DocumentIndex index;
    private Map<String, URI> bases;

    private record Served(int status, String etag, byte[] body) {
    }

    @BeforeAll
    static void startPool() {
        pool = new WorkerPoolParser(ParseLimits.defaults().withPoolSize(1));
    }

    @AfterAll
    static void stopPool() {
        pool.close();
    }

    @BeforeEach
    void setUp() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/docs/", this::serve);
        server.start();
        store = new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")), Clock.systemUTC());
        index = new DocumentIndex(dataSource(), 2);
        bases = new ConcurrentHashMap<>();
        bases.put("web", URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/docs/"));
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private void serve(HttpExchange x) throws IOException {
        requestNanos.add(System.nanoTime());
        requests.add(x.getRequestMethod() + " " + x.getRequestURI());
        if (answerDelayMillis > 0) {
            try {
                Thread.sleep(answerDelayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Served s = served.get(x.getRequestURI().getPath().substring("/docs/".length()));
        if (s == null) {
            s = new Served(404, null, new byte[0]);
        }
        if (s.etag() != null) {
            x.getResponseHeaders().set("ETag", s.etag());
        }
        boolean head = "HEAD".equals(x.getRequestMethod());
        x.sendResponseHeaders(s.status(), head || s.body().length == 0 ? -1 : s.body().length);
        if (!head && s.body().length > 0) {
            try (OutputStream out = x.getResponseBody()) {
                out.write(s.body());
            }
        }
        x.close();
    }

    @Test
    void shouldRepairDeleteAndKeepFailingExactlyAsTheSourceNowAnswers() throws Exception {
        fail("web", "changed.pdf", "v1");
        served.put("changed.pdf", new Served(200, "\"v2\"", TextPdf.of("revision two of the contract")));
        fail("web", "fixed.pdf", "\"f1\"");
        served.put("fixed.pdf", new Served(200, "\"f1\"", TextPdf.of("page one", "page two")));
        fail("web", "gone404.pdf", "g1");
        fail("web", "gone410.pdf", "g2");
        served.put("gone410.pdf", new Served(410, null, new byte[0]));
        fail("web", "broken.pdf", "b1");
        served.put("broken.pdf", new Served(200, "\"b2\"", "still not a PDF".getBytes(StandardCharsets.US_ASCII)));
        fail("web", "other-cohort.pdf", "o1", "fp-other");

        DrainReport report = drain(SourceRequestThrottle.unlimited()).run(request(10, 50), (done, of) -> { });

        assertThat(report.selected()).isEqualTo(5);
        assertThat(report.forecast()).isNull();
        assertThat(report.outcomes()).hasSize(4)
                .containsEntry("repaired_content_changed", 1L).containsEntry("repaired_parser_fixed", 1L)
                .containsEntry("deleted_at_source", 2L);
        String stillFailing = report.outcomes().keySet().stream().filter(k -> k.startsWith("still_failing:"))
                .findFirst().orElseThrow();
        assertThat(report.outcomes().get(stillFailing)).isEqualTo(1L);
        assertThat(report.outcomes().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(report.selected());
        assertThat(disposition("changed.pdf")).isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
        assertThat(disposition("fixed.pdf")).isEqualTo(Disposition.REPAIRED_PARSER_FIXED);
        assertThat(disposition("gone404.pdf")).isEqualTo(Disposition.DELETED_AT_SOURCE);
        assertThat(disposition("gone410.pdf")).isEqualTo(Disposition.DELETED_AT_SOURCE);
        assertThat(disposition("broken.pdf")).isEqualTo(Disposition.OPEN);
        assertThat(disposition("other-cohort.pdf")).isEqualTo(Disposition.OPEN);
        var broken = store.find("web", "broken.pdf").orElseThrow();
        assertThat(broken.attempts()).isEqualTo(2);
        assertThat(stillFailing).isEqualTo("still_failing:" + broken.errorFingerprint());
        assertThat(broken.sourceVersion()).isEqualTo("\"b2\"");
        assertThat(query("SELECT source_version || ' ' || (SELECT string_agg(text, ' ') FROM chunks c"
                + " WHERE c.doc_id = d.doc_id) FROM documents d WHERE doc_id = 'changed.pdf'"))
                .as("the index holds the source's current revision, not the stored payload").isEqualTo(
                        "\"v2\" revision two of the contract");
        assertThat(query("SELECT status || ' ' || selected || ' ' || outcome_counts::text FROM drain_runs"))
                .startsWith("finished 5 {");
        assertThat(query("SELECT count(*) FROM quarantine")).isEqualTo("6");
    }

    /**
     * Every replay (the source asked again) adds one to the record's replay_count and names its time and run, whatever
     * the verdict: repaired, deleted at source or still failing; a record the drain did not ask about keeps 0.
     */
    @Test
    void shouldKeepEachReplayInTheRecordsHistoryWhateverTheVerdict() throws Exception {
        fail("web", "fixed.pdf", "\"f1\"");
        served.put("fixed.pdf", new Served(200, "\"f1\"", TextPdf.of("parses now")));
        fail("web", "gone.pdf", "g1");
        fail("web", "broken.pdf", "b1");
        served.put("broken.pdf", new Served(200, "\"b2\"", "still not a PDF".getBytes(StandardCharsets.US_ASCII)));
        fail("nowhere", "unasked.pdf", "u1"); // no URI known for its source: not attempted
        assertThat(store.find("web", "broken.pdf").orElseThrow().replayCount()).isZero();

        DrainReport first = drain(SourceRequestThrottle.unlimited()).run(request(10, 50), (done, of) -> { });

        assertThat(first.outcomes()).containsEntry("repaired_parser_fixed", 1L).containsEntry("deleted_at_source", 1L)
                .containsEntry("not_attempted:" + ReplayPreflight.NO_SOURCE_URI, 1L);
        for (String docId : new String[] {"fixed.pdf", "gone.pdf", "broken.pdf"}) {
            QuarantineRecord r = store.find("web", docId).orElseThrow();
            assertThat(r.replayCount()).as(docId).isEqualTo(1);
            assertThat(r.lastDrainRunId()).as(docId).isEqualTo(first.runId());
            assertThat(r.lastReplayedAt()).as(docId).isNotNull();
        }
        QuarantineRecord unasked = store.find("nowhere", "unasked.pdf").orElseThrow();
        assertThat(unasked.replayCount()).isZero();
        assertThat(unasked.lastReplayedAt()).isNull();
        assertThat(unasked.lastDrainRunId()).isNull();
        QuarantineRecord once = store.find("web", "broken.pdf").orElseThrow();

        // still failing: its cohort is now the failure's own fingerprint; a second drain replays it again
        DrainReport second = drain(SourceRequestThrottle.unlimited())
                .run(new Drain.Request(once.errorFingerprint(), null, null, 10, 50, "test"), (done, of) -> { });

        assertThat(second.outcomes()).containsOnlyKeys("still_failing:" + once.errorFingerprint());
        QuarantineRecord twice = store.find("web", "broken.pdf").orElseThrow();
        assertThat(twice.replayCount()).isEqualTo(2);
        assertThat(twice.lastDrainRunId()).isEqualTo(second.runId()).isNotEqualTo(first.runId());
        assertThat(twice.lastReplayedAt()).isAfter(once.lastReplayedAt());
        assertThat(store.find("web", "fixed.pdf").orElseThrow().replayCount()).as("not in the second run").isEqualTo(1);
    }

    /**
     * A document ingest quarantined with a root cause distinct from the classified wrapper (the worker's
     * {@code IOException} inside {@code PdfSyntaxException}) keeps that root cause as its error when a drain
     * attempt fails the same way: the drain records the error by the ingest route's rule, not the wrapper's.
     */
    @Test
    void shouldRecordAFailingAttemptsErrorAsIngestDidRootCauseFirst() throws Exception {
        byte[] broken = ("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n5\nendobj\n"
                + "trailer\n<< /Root 1 0 R /Size 3 >>\n%%EOF\n").getBytes(StandardCharsets.US_ASCII);
        Path file = Files.write(temp.resolve("page-tree.pdf"), broken);
        Exception failure = null;
        try {
            pool.parse(file);
        } catch (ParseException e) {
            failure = e;
        }
        assertThat(failure).as("the worker pool fails the document").isNotNull();
        // what the ingest route records: the pool's failure, classified, turned into evidence by QuarantineRecorder
        Classification classified = ErrorTaxonomy.standard().classify(failure);
        Exchange exchange = new DefaultExchange(new DefaultCamelContext());
        exchange.setProperty(Exchange.EXCEPTION_CAUGHT, failure);
        exchange.setProperty(PipelineKeys.FAILURE, classified);
        exchange.setProperty(PipelineKeys.STAGE, "parse");
        exchange.setProperty(PipelineKeys.RECORD_KEY, new RecordKey("web", "page-tree.pdf"));
        Map<String, Object> ingest = new QuarantineRecorder(store, new PipelineVersions(Map.of("http", "test"),
                OLD_PARSER, "window-test", "test"), new PipelineMetrics(new SimpleMeterRegistry(), org.ingestquarantine.metrics.SourceTags.of(java.util.Set.of()))).evidence(exchange);
        String fingerprint = (String) ingest.get("error_fingerprint");
        store.record(FailureEvidence.builder("web", "page-tree.pdf").errorClass(classified.errorClass())
                .reasonCode(classified.reasonCode()).stage("parse").errorType((String) ingest.get("error_type"))
                .errorMessage((String) ingest.get("error_message")).errorFingerprint(fingerprint)
                .parserVersion(OLD_PARSER).sourceVersion("\"p1\"").build());
        assertThat(ingest.get("error_type")).isEqualTo("java.io.IOException");
        assertThat((String) ingest.get("error_message")).startsWith("IOException: Page tree root must be a dictionary");
        served.put("page-tree.pdf", new Served(200, "\"p2\"", broken));

        DrainReport report = drain(SourceRequestThrottle.unlimited())
                .run(new Drain.Request(fingerprint, OLD_PARSER, null, 10, 50, "test"), (done, of) -> { });

        assertThat(report.outcomes()).containsOnlyKeys("still_failing:" + fingerprint);
        var record = store.find("web", "page-tree.pdf").orElseThrow();
        assertThat(record.attempts()).isEqualTo(2);
        assertThat(record.sourceVersion()).isEqualTo("\"p2\"");
        assertThat(record.errorFingerprint()).isEqualTo(fingerprint);
        assertThat(record.errorType()).as("the root cause's type, as ingest recorded it")
                .isEqualTo(ingest.get("error_type"));
        assertThat(record.errorMessage()).as("the root cause first, as ingest recorded it")
                .isEqualTo(ingest.get("error_message"));
    }

    @Test
    void shouldReplayAFolderWhoseFilesWereReplacedOrDeleted() throws Exception {
        Path folder = Files.createDirectories(temp.resolve("folder"));
        bases.put("folder", folder.toUri());
        Path replaced = Files.write(folder.resolve("replaced.pdf"), "garbage".getBytes(StandardCharsets.US_ASCII));
        Path deleted = Files.write(folder.resolve("deleted.pdf"), "garbage too".getBytes(StandardCharsets.US_ASCII));
        fail("folder", "replaced.pdf", "sha-of-garbage");
        fail("folder", "deleted.pdf", "sha-of-garbage-too");
        Files.write(replaced, TextPdf.of("replacement text"));
        Files.delete(deleted);

        DrainReport report = drain(SourceRequestThrottle.unlimited()).run(request(10, 50), (done, of) -> { });

        assertThat(report.outcomes()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "repaired_content_changed", 1L, "deleted_at_source", 1L));
        assertThat(store.find("folder", "replaced.pdf").orElseThrow().disposition())
                .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
    }

    /**
     * The drain closes a record by the index close's rule ({@code ingest.RepairClose}): a version the record does
     * not hold (its failure came before the fetch) is no evidence that the bytes changed, so it closes as
     * {@code repaired_parser_fixed}, as a later delivery's index write would; with the parser the record's too,
     * reason code {@code no_change_seen}. A payload sha256 the record holds is compared as well: the same etag over
     * other bytes is a content change.
     */
    @Test
    void shouldCloseARecordWithoutASourceVersionAsParserFixedAsTheIndexCloseDoes() throws Exception {
        String cohort = "fp-before-fetch";
        store.record(beforeFetch("unknown.pdf", cohort, OLD_PARSER));
        served.put("unknown.pdf", new Served(200, "\"u1\"", TextPdf.of("fetched for the first time")));
        store.record(beforeFetch("unknown-same-parser.pdf", cohort, ParserVersion.CURRENT));
        served.put("unknown-same-parser.pdf", new Served(200, "\"s1\"", TextPdf.of("a transient cause went away")));
        Path kept = Files.write(temp.resolve("kept.bin"), "the bytes that failed".getBytes(StandardCharsets.US_ASCII));
        store.record(FailureEvidence.builder("web", "same-etag.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .reasonCode("parse_error").errorFingerprint(cohort).parserVersion(OLD_PARSER).sourceVersion("\"e1\"")
                .payload(kept).stage("parse").build());
        served.put("same-etag.pdf", new Served(200, "\"e1\"", TextPdf.of("other bytes under the same etag")));
        assertThat(store.find("web", "unknown.pdf").orElseThrow().sourceVersion()).isNull();

        DrainReport report = drain(SourceRequestThrottle.unlimited())
                .run(new Drain.Request(cohort, null, null, 10, 50, "test"), (done, of) -> { });

        assertThat(report.outcomes()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "repaired_parser_fixed", 2L, "repaired_content_changed", 1L));
        QuarantineRecord unknown = store.find("web", "unknown.pdf").orElseThrow();
        assertThat(unknown.disposition()).as("no version known: not evidence that the bytes changed")
                .isEqualTo(Disposition.REPAIRED_PARSER_FIXED);
        assertThat(unknown.reasonCode()).as("the parser changed: the failure's reason stays").isEqualTo("fetch_refused");
        assertThat(unknown.closedAt()).isNotNull();
        QuarantineRecord same = store.find("web", "unknown-same-parser.pdf").orElseThrow();
        assertThat(same.disposition()).isEqualTo(Disposition.REPAIRED_PARSER_FIXED);
        assertThat(same.reasonCode()).isEqualTo(RepairClose.NO_CHANGE_SEEN);
        assertThat(disposition("same-etag.pdf")).as("same etag, other bytes than the stored payload's")
                .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
        assertThat(query("SELECT string_agg(doc_id, ',' ORDER BY doc_id) FROM documents WHERE state = 'searchable'"))
                .isEqualTo("same-etag.pdf,unknown-same-parser.pdf,unknown.pdf");
        assertThat(query("SELECT count(*) FROM quarantine_attempt")).as("a close appends no attempt").isEqualTo("3");
    }

    /**
     * Seed 004's re-saved files: three byte-identical documents re-served by a real HTTP server under a fresh weak
     * ETag ({@code W/"resaved-..."}), their records holding the same payload's sha256. The digest is the fact, the
     * ETag the source's opinion: each closes {@code repaired_parser_fixed}, decided {@code by=sha256}, in the
     * report, the record and the run's item.
     */
    @Test
    void shouldJudgeByThePayloadsSha256BeforeTheEtag() throws Exception {
        Path docs = Files.createDirectories(temp.resolve("site"));
        try (org.ingestquarantine.testsupport.FolderHttpServer site =
                     org.ingestquarantine.testsupport.FolderHttpServer.serve(docs)) {
            bases.put("site", site.base());
            for (int i = 1; i <= 3; i++) {
                String name = "resaved-" + i + ".pdf";
                byte[] bytes = TextPdf.of("contract " + i + ", unchanged since it failed");
                Path file = Files.write(docs.resolve(name), bytes);
                store.record(FailureEvidence.builder("site", name).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                        .reasonCode("parse_error").errorFingerprint("fp-resaved").parserVersion(OLD_PARSER)
                        .sourceVersion(org.ingestquarantine.testsupport.FolderHttpServer.etagOf(bytes))
                        .sourceUri(site.uri(name).toString()).payload(file).stage("parse").build());
                site.etag(name, "W/\"resaved-" + i + "\"");
            }
            java.util.Properties p = new java.util.Properties();
            p.setProperty("sources.site.http-allow", "http://" + site.base().getAuthority());
            p.setProperty("sources.site.http-allow-private", "true");

            DrainReport report = drainWith(SourceAccess.fromProperties(p))
                    .run(new Drain.Request("fp-resaved", null, null, 10, 50, "test"), (done, of) -> { });

            assertThat(report.outcomes()).containsExactlyEntriesOf(Map.of("repaired_parser_fixed", 3L));
            assertThat(report.verdicts()).containsExactlyEntriesOf(Map.of("repaired_parser_fixed by=sha256", 3L));
            assertThat(site.requests()).as("each asked of the server: HEAD and GET").isEqualTo(6);
            for (int i = 1; i <= 3; i++) {
                QuarantineRecord r = store.find("site", "resaved-" + i + ".pdf").orElseThrow();
                assertThat(r.disposition()).as("same bytes under a fresh ETag").isEqualTo(Disposition.REPAIRED_PARSER_FIXED);
                assertThat(r.verdictBy()).isEqualTo("sha256");
            }
            assertThat(query("SELECT string_agg(DISTINCT verdict_by, ',') FROM drain_run_items")).isEqualTo("sha256");
            assertThat(query("SELECT string_agg(DISTINCT source_version, ',') FROM documents"))
                    .as("the index holds what the source serves now").startsWith("W/\"resaved-");
        }
    }

    /** Where no digest is held, the version decides, and where neither is, nothing says the bytes changed. */
    @Test
    void shouldReportTheVersionOrNoEvidenceWhereNoDigestIsHeld() throws Exception {
        fail("web", "changed.pdf", "v1");
        served.put("changed.pdf", new Served(200, "\"v2\"", TextPdf.of("revision two")));
        store.record(beforeFetch("unknown.pdf", COHORT, OLD_PARSER));
        served.put("unknown.pdf", new Served(200, "\"u1\"", TextPdf.of("fetched for the first time")));

        DrainReport report = drain(SourceRequestThrottle.unlimited())
                .run(new Drain.Request(COHORT, null, null, 10, 50, "test"), (done, of) -> { });

        assertThat(report.verdicts()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "repaired_content_changed by=version", 1L, "repaired_parser_fixed by=none", 1L));
        assertThat(store.find("web", "changed.pdf").orElseThrow().verdictBy()).isEqualTo("version");
        assertThat(store.find("web", "unknown.pdf").orElseThrow().verdictBy()).isEqualTo("none");
    }

    @Test
    void shouldFixTheSelectionAtTheStartAndForecastFromACanary() throws Exception {
        for (int i = 0; i < 6; i++) {
            fail("web", "doc-" + i + ".pdf", "e" + i);
        }
        AtomicBoolean joined = new AtomicBoolean();
        Drain drain = drain(SourceRequestThrottle.unlimited());

        DrainReport canary = drain.run(request(2, 50), (done, of) -> {
            if (joined.compareAndSet(false, true)) {
                fail("web", "late.pdf", "l1");
            }
        });

        assertThat(canary.selected()).isEqualTo(2);
        assertThat(canary.cohortDocuments()).isEqualTo(6);
        assertThat(canary.outcomes()).containsExactly(Map.entry("deleted_at_source", 2L));
        assertThat(canary.forecast().documents()).isEqualTo(6);
        assertThat(canary.forecast().sourceRequests()).isEqualTo(6);
        // 6 requests spaced as the throttle spaces them at 50/s: 20 ms plus the 25% headroom each (not 6 / 50 s)
        assertThat(canary.forecast().duration()).isEqualTo(Duration.ofMillis(150));
        assertThat(canary.forecast().repairShare()).isEqualTo(1.0);
        assertThat(canary.forecast().repairShareLow()).isBetween(0.3, 0.4);
        assertThat(disposition("late.pdf")).as("joined after the start: not swept in").isEqualTo(Disposition.OPEN);
        assertThat(query("SELECT count(*) FROM quarantine WHERE disposition = 'open'")).isEqualTo("5");
    }

    /**
     * The forecast's time is what the drain of the rest really takes at the same rate: the throttle spaces the
     * requests {@code 1 s / R} plus the headroom apart, so a run of N requests lasts at least N - 1 spacings.
     */
    @Test
    void shouldForecastTheTimeTheThrottleReallySpendsAtTheRate() throws Exception {
        for (int i = 0; i < 6; i++) {
            fail("web", "gone-" + i + ".pdf", "g" + i); // 404: one HEAD each
        }
        Drain drain = drain(SourceRequestThrottle.unlimited());
        double rate = 10;
        Duration spacing = Duration.ofMillis(125); // 100 ms at 10/s, plus 25%

        DrainReport canary = drain.run(request(1, rate), (done, of) -> { });
        DrainReport rest = drain.run(request(10, rate), (done, of) -> { });

        assertThat(canary.forecast().sourceRequests()).isEqualTo(6);
        assertThat(canary.forecast().duration()).isEqualTo(spacing.multipliedBy(6));
        assertThat(rest.sourceRequests()).isEqualTo(5);
        assertThat(rest.elapsed()).as("5 requests at 10/s with headroom").isGreaterThanOrEqualTo(spacing.multipliedBy(4));
        assertThat(canary.forecast().duration().dividedBy(6))
                .as("per request, the forecast is the real spacing, not 1 s / R").isEqualTo(spacing);
    }

    /** What Ctrl-C does (DrainCommand's SIGINT handler interrupts the drain thread), at a random moment mid-run. */
    @Test
    void shouldLeaveEveryRecordClosedWithItsOutcomeOrOpenAsBeforeWhenInterrupted() throws Exception {
        for (int i = 0; i < 12; i++) {
            String doc = "doc-" + i + ".pdf";
            fail("web", doc, "\"e" + i + "\"");
            switch (i % 3) {
                case 0 -> { } // 404: deleted at source
                case 1 -> served.put(doc, new Served(200, "\"e" + i + "\"", TextPdf.of("now it parses " + i)));
                default -> served.put(doc, new Served(200, "\"e" + i + "\"", "not a pdf".getBytes(StandardCharsets.US_ASCII)));
            }
        }
        Map<String, QuarantineRecord> before = new java.util.HashMap<>();
        for (int i = 0; i < 12; i++) {
            QuarantineRecord r = store.find("web", "doc-" + i + ".pdf").orElseThrow();
            before.put(r.dlqId(), r);
        }
        answerDelayMillis = 120;
        Drain drain = drain(SourceRequestThrottle.unlimited());
        java.util.concurrent.atomic.AtomicReference<DrainReport> result = new java.util.concurrent.atomic.AtomicReference<>();
        Thread worker = new Thread(() -> result.set(drain.run(request(12, 50), (d, of) -> { })), "drain-under-test");
        worker.start();
        long interruptAfter = 5 + new java.util.Random().nextInt(6);
        while (requestNanos.size() < interruptAfter && worker.isAlive()) {
            Thread.sleep(5);
        }
        worker.interrupt();
        worker.join(60_000);

        DrainReport report = result.get();
        assertThat(report.interrupted()).as("interrupted mid-run (after %d requests)", interruptAfter).isTrue();
        assertThat(report.outcomes()).containsKey("not_tried");
        Map<String, String> items = new java.util.HashMap<>();
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT dlq_id, outcome FROM drain_run_items")) {
            while (rs.next()) {
                items.put(rs.getString(1), rs.getString(2));
            }
        }
        assertThat(items.keySet()).isEqualTo(before.keySet());
        for (Map.Entry<String, String> item : items.entrySet()) {
            QuarantineRecord was = before.get(item.getKey());
            QuarantineRecord now = store.findById(item.getKey()).orElseThrow();
            String outcome = item.getValue();
            if (outcome.equals("not_tried") || outcome.startsWith("still_failing:")) {
                assertThat(now.disposition()).as(was.docId() + " " + outcome).isEqualTo(Disposition.OPEN);
                assertThat(now.attempts()).as(was.docId() + " " + outcome)
                        .isEqualTo(outcome.equals("not_tried") ? was.attempts() : was.attempts() + 1);
                if (outcome.equals("not_tried")) {
                    assertThat(now.errorFingerprint()).isEqualTo(was.errorFingerprint());
                    assertThat(now.sourceVersion()).isEqualTo(was.sourceVersion());
                    assertThat(now.lastSeenAt()).isEqualTo(was.lastSeenAt());
                }
            } else {
                assertThat(now.disposition().code()).as(was.docId()).isEqualTo(outcome);
                assertThat(now.closedAt()).isNotNull();
                assertThat(now.attempts()).isEqualTo(was.attempts());
            }
        }
        assertThat(query("SELECT count(*) FROM quarantine WHERE disposition <> 'open'"))
                .isEqualTo(Long.toString(items.values().stream().filter(o -> !o.equals("not_tried")
                        && !o.startsWith("still_failing:")).count()));
        assertThat(query("SELECT status FROM drain_runs")).isEqualTo("interrupted");
    }

    @Test
    void shouldRefuseBadRequestsAndWriteNothing() throws Exception {
        fail("web", "a.pdf", "a1");
        Drain drain = drain(SourceRequestThrottle.unlimited());

        assertThatThrownBy(() -> drain.run(request(5, 0), (d, of) -> { })).isInstanceOf(BadOperatorInputException.class)
                .hasMessageStartingWith("--rate must be a positive number");
        assertThatThrownBy(() -> drain.run(request(5, -2), (d, of) -> { })).isInstanceOf(BadOperatorInputException.class);
        assertThatThrownBy(() -> drain.run(new Drain.Request("fp-none", null, null, 5, 5, "t"), (d, of) -> { }))
                .isInstanceOf(BadOperatorInputException.class).hasMessageContaining("no open record has fingerprint fp-none");
        assertThat(query("SELECT count(*) FROM drain_runs")).isEqualTo("0");
        assertThat(requestNanos).isEmpty();
    }

    @Test
    void shouldNeverExceedTheRateInAnySecondAsSeenByTheServer() throws Exception {
        for (int i = 0; i < 9; i++) {
            fail("web", "gone-" + i + ".pdf", "g" + i);
        }
        for (int i = 0; i < 4; i++) {
            fail("web", "here-" + i + ".pdf", "h" + i);
            served.put("here-" + i + ".pdf", new Served(200, "\"h" + i + "\"", "not a pdf".getBytes(StandardCharsets.US_ASCII)));
        }

        DrainReport report = drain(SourceRequestThrottle.unlimited()).run(request(20, 4), (d, of) -> { });

        assertThat(report.sourceRequests()).isEqualTo(9 + 4 * 2);
        assertThat(requestNanos).hasSize(17);
        assertThat(ArrivalWindows.maxInAnySecond(requestNanos)).isLessThanOrEqualTo(4);
    }

    @Test
    void shouldNeverExceedTheRateWhenEveryDocumentIsDeletedAtSource() throws Exception {
        for (int i = 0; i < 10; i++) {
            fail("web", "gone-" + i + ".pdf", "g" + i);
        }

        DrainReport report = drain(SourceRequestThrottle.unlimited()).run(request(20, 4), (d, of) -> { });

        assertThat(report.outcomes()).containsExactly(Map.entry("deleted_at_source", 10L));
        assertThat(requestNanos).as("one HEAD each, the fast path").hasSize(10);
        assertThat(ArrivalWindows.maxInAnySecond(requestNanos)).isLessThanOrEqualTo(4);
    }

    @Test
    void shouldNeverExceedTheRateWhenEveryDocumentIsPresent() throws Exception {
        for (int i = 0; i < 5; i++) {
            fail("web", "here-" + i + ".pdf", "h" + i);
            served.put("here-" + i + ".pdf", new Served(200, "\"h" + i + "\"", "not a pdf".getBytes(StandardCharsets.US_ASCII)));
        }

        DrainReport report = drain(SourceRequestThrottle.unlimited()).run(request(20, 4), (d, of) -> { });

        assertThat(report.sourceRequests()).as("HEAD and GET each").isEqualTo(10);
        assertThat(requestNanos).hasSize(10);
        assertThat(ArrivalWindows.maxInAnySecond(requestNanos)).isLessThanOrEqualTo(4);
    }

    @Test
    void shouldShareTheCeilingWithTheLiveConnectorThroughPostgres() throws Exception {
        for (int i = 0; i < 8; i++) {
            fail("web", "gone-" + i + ".pdf", "g" + i);
        }
        SourceRequestThrottle shared = SourceRequestThrottle.sharedInPostgres(dataSource(), 5, HEADROOM_PERCENT, 2);
        SourceConnector live = SourceRequestThrottle.sharedInPostgres(dataSource(), 5, HEADROOM_PERCENT, 2)
                .around(new HttpConnector("http", HTTP));
        Thread liveIngest = new Thread(() -> {
            for (int i = 0; i < 8; i++) {
                try {
                    live.head(bases.get("web").resolve("live-" + i + ".pdf"), access().guard("web"));
                } catch (IOException expected) {
                    // 404: the live path's own business; it still took a token
                }
            }
        });
        liveIngest.start();

        DrainReport report = drain(shared).run(request(20, 50), (d, of) -> { });
        liveIngest.join();

        assertThat(report.outcomes()).containsExactly(Map.entry("deleted_at_source", 8L));
        assertThat(requestNanos).hasSize(16);
        assertThat(ArrivalWindows.maxInAnySecond(requestNanos)).isLessThanOrEqualTo(5);
    }

    /**
     * The README's flow done wrong: the drain's process does not know the source (or the source's roots do not hold
     * the document). Nothing is asked of the source, the record stays exactly as it was (no new attempt, no new
     * fingerprint or class), and the report says why, once per reason.
     */
    @Test
    void shouldNotAttemptNorRecordAnythingWhenThisProcessMayNotAskTheSource() throws Exception {
        Path folder = Files.createDirectories(temp.resolve("pdfs"));
        Files.write(folder.resolve("a.pdf"), TextPdf.of("would parse now"));
        Files.write(temp.resolve("outside.pdf"), TextPdf.of("would parse too"));
        bases.put("pdfs", folder.toUri());
        bases.put("folder", temp.resolve("elsewhere-than-roots").toUri());
        fail("pdfs", "a.pdf", "sha-a");
        fail("folder", "../outside.pdf", "sha-o");
        Map<String, QuarantineRecord> before = new java.util.HashMap<>();
        for (String[] d : new String[][] {{"pdfs", "a.pdf"}, {"folder", "../outside.pdf"}}) {
            before.put(d[1], store.find(d[0], d[1]).orElseThrow());
        }
        java.util.Properties p = new java.util.Properties();
        p.setProperty("sources.folder.file-roots", Files.createDirectories(temp.resolve("only-root")).toString());
        Drain drain = drainWith(SourceAccess.fromProperties(p));

        DrainReport report = drain.run(request(10, 50), (done, of) -> { });

        assertThat(report.outcomes()).containsExactlyInAnyOrderEntriesOf(Map.of(
                "not_attempted:unknown_source", 1L, "not_attempted:uri_not_allowed", 1L));
        assertThat(report.notAttempted()).containsOnlyKeys("not_attempted:unknown_source", "not_attempted:uri_not_allowed");
        assertThat(report.notAttempted().get("not_attempted:unknown_source")).contains("'pdfs' is not configured");
        assertThat(report.sourceRequests()).isZero();
        assertThat(report.forecast()).isNull();
        for (String[] d : new String[][] {{"pdfs", "a.pdf"}, {"folder", "../outside.pdf"}}) {
            QuarantineRecord now = store.find(d[0], d[1]).orElseThrow();
            assertThat(now).as(d[1] + " exactly as it was").usingRecursiveComparison().isEqualTo(before.get(d[1]));
            assertThat(store.attempts(now.dlqId())).hasSize(1);
        }
        assertThat(query("SELECT count(*) FROM documents")).isEqualTo("0");
        assertThat(query("SELECT string_agg(outcome, ',' ORDER BY outcome) FROM drain_run_items"))
                .isEqualTo("not_attempted:unknown_source,not_attempted:uri_not_allowed");
        assertThat(report.nothingAttempted()).isTrue();
        assertThat(new OperatorRegisters(dataSource()).drainRuns(null)).as("listed as no drain, not as finished")
                .extracting(DrainRunRow::status).containsExactly(Drain.NOTHING_ATTEMPTED);
    }

    /**
     * A record keeps the URI its message named (a run-fed source: no base-uri, no folder an ingest counted), and the
     * drain asks for exactly it, though it is not {@code <anything><doc_id>}; a failing attempt keeps it too. A
     * source with {@code base-uri} configured is asked there instead: the configuration overrides the record.
     */
    @Test
    void shouldFetchExactlyTheRecordedUriUnlessTheSourceHasABaseUri() throws Exception {
        String docs = bases.get("web").toString();
        recordAt("feed", "x.pdf", docs + "2025/x-7.pdf?rev=1");
        served.put("2025/x-7.pdf", new Served(200, "\"x2\"", TextPdf.of("the producer's document now parses")));
        recordAt("feed", "broken.pdf", docs + "2025/broken-7.pdf");
        served.put("2025/broken-7.pdf", new Served(200, "\"b2\"", "still not a PDF".getBytes(StandardCharsets.US_ASCII)));
        recordAt("web", "mirrored.pdf", docs + "old-place/mirrored.pdf");
        served.put("mirrored.pdf", new Served(200, "\"m2\"", TextPdf.of("served where base-uri says")));

        DrainReport report = drainWith(accessWith("feed", docs)).run(request(10, 50), (done, of) -> { });

        assertThat(report.outcomes()).containsEntry("repaired_content_changed", 2L).hasSize(2);
        assertThat(requests).containsExactlyInAnyOrder("HEAD /docs/2025/x-7.pdf?rev=1", "GET /docs/2025/x-7.pdf?rev=1",
                "HEAD /docs/2025/broken-7.pdf", "GET /docs/2025/broken-7.pdf",
                "HEAD /docs/mirrored.pdf", "GET /docs/mirrored.pdf");
        assertThat(store.find("feed", "x.pdf").orElseThrow().disposition()).isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
        assertThat(disposition("mirrored.pdf")).isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
        QuarantineRecord broken = store.find("feed", "broken.pdf").orElseThrow();
        assertThat(broken.disposition()).isEqualTo(Disposition.OPEN);
        assertThat(store.attempts(broken.dlqId())).extracting(a -> a.sourceUri())
                .as("the drain's attempt keeps the URI it asked").containsExactly(docs + "2025/broken-7.pdf",
                        docs + "2025/broken-7.pdf");
    }

    /**
     * The URI a record keeps was admitted when it was recorded; the drain's process checks it again against ITS
     * configuration (narrowed since: the source may read only {@code /docs/public/} now), and a scheme no connector
     * of its reads is not asked either: nothing is requested, the record stays exactly as it was, and the report
     * says why.
     */
    @Test
    void shouldNotAskForARecordedUriThisProcessNoLongerAllows() throws Exception {
        String docs = bases.get("web").toString();
        recordAt("feed", "private.pdf", docs + "private.pdf");
        served.put("private.pdf", new Served(200, "\"p2\"", TextPdf.of("would parse now")));
        recordAt("feed", "bucket.pdf", "s3://contracts/bucket.pdf");
        QuarantineRecord before = store.find("feed", "private.pdf").orElseThrow();

        DrainReport report = drainWith(accessWith("feed", docs + "public/")).run(request(10, 50), (done, of) -> { });

        assertThat(report.outcomes()).containsOnly(Map.entry("not_attempted:uri_not_allowed", 1L),
                Map.entry("not_attempted:unsupported_uri", 1L));
        assertThat(report.notAttempted().get("not_attempted:uri_not_allowed")).contains("private.pdf")
                .contains("http-allow");
        assertThat(report.notAttempted().get("not_attempted:unsupported_uri")).contains("s3://contracts/bucket.pdf");
        assertThat(requests).as("requests that reached the server").isEmpty();
        assertThat(store.find("feed", "private.pdf").orElseThrow()).usingRecursiveComparison().isEqualTo(before);
        assertThat(store.attempts(before.dlqId())).hasSize(1);
    }

    /** A failure as ingest records it for a message whose URI its source admitted. */
    private void recordAt(String source, String docId, String uri) {
        store.record(FailureEvidence.builder(source, docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint(COHORT).parserVersion(OLD_PARSER).sourceVersion("\"v1\"").sourceUri(uri).build());
    }

    /** The drained sources with a run-fed source {@code name} that may read under {@code prefix}, nothing more. */
    private SourceAccess accessWith(String name, String prefix) {
        java.util.Properties p = new java.util.Properties();
        URI web = bases.get("web");
        p.setProperty("sources.web.http-allow", web.getScheme() + "://" + web.getAuthority());
        p.setProperty("sources.web.http-allow-private", "true");
        p.setProperty("sources." + name + ".http-allow", prefix);
        p.setProperty("sources." + name + ".http-allow-private", "true");
        return SourceAccess.fromProperties(p);
    }

    /**
     * The index write and the record's closing are one transaction: when closing fails (here a trigger refuses it,
     * as a database failing between the two statements would), the index write is rolled back with it, so no
     * document is indexed while its record stays open.
     */
    @Test
    void shouldRollBackTheIndexWriteWhenTheRecordCannotBeClosed() throws Exception {
        fail("web", "fixed.pdf", "\"f1\"");
        served.put("fixed.pdf", new Served(200, "\"f1\"", TextPdf.of("page one", "page two")));
        try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE FUNCTION refuse_close() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " RAISE EXCEPTION 'closing refused by the test'; END $$");
            st.execute("CREATE TRIGGER refuse_close BEFORE UPDATE ON quarantine FOR EACH ROW"
                    + " WHEN (NEW.disposition <> 'open') EXECUTE FUNCTION refuse_close()");
        }
        try {
            DrainReport report = drain(SourceRequestThrottle.unlimited()).run(request(10, 50), (done, of) -> { });

            assertThat(report.outcomes()).containsOnlyKeys(report.outcomes().keySet().stream()
                    .filter(k -> k.startsWith("still_failing:")).toList()).hasSize(1);
            assertThat(disposition("fixed.pdf")).isEqualTo(Disposition.OPEN);
            assertThat(query("SELECT count(*) FROM documents")).as("the index write rolled back with the close")
                    .isEqualTo("0");
            assertThat(query("SELECT count(*) FROM chunks")).isEqualTo("0");
        } finally {
            try (Connection c = dataSource().getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TRIGGER refuse_close ON quarantine");
                st.execute("DROP FUNCTION refuse_close()");
            }
        }
    }

    /** A drain with a source selects only that source's records of the cohort: the others are left untouched. */
    @Test
    void shouldSelectOnlyTheNamedSourcesRecords() throws Exception {
        fail("web", "gone.pdf", "\"g1\"");
        served.put("gone.pdf", new Served(404, null, new byte[0]));
        fail("folder", "elsewhere.pdf", "v1");
        String before = query("SELECT disposition || ' ' || attempts FROM quarantine WHERE source = 'folder'");

        DrainReport report = drain(SourceRequestThrottle.unlimited()).run(new Drain.Request(COHORT, OLD_PARSER, null,
                10, 50, "test", "web"), (done, of) -> { });

        assertThat(report.cohortDocuments()).isEqualTo(1);
        assertThat(report.selected()).isEqualTo(1);
        assertThat(report.outcomes()).containsExactlyEntriesOf(Map.of("deleted_at_source", 1L));
        assertThat(query("SELECT count(*) FROM drain_run_items i JOIN quarantine q USING (dlq_id)"
                + " WHERE q.source <> 'web'")).isEqualTo("0");
        assertThat(query("SELECT disposition || ' ' || attempts FROM quarantine WHERE source = 'folder'"))
                .isEqualTo(before).isEqualTo("open 1");
    }

    private Drain drain(SourceRequestThrottle shared) {
        return drainWith(access(), shared);
    }

    private Drain drainWith(SourceAccess access) {
        return drainWith(access, SourceRequestThrottle.unlimited());
    }

    private Drain drainWith(SourceAccess access, SourceRequestThrottle shared) {
        Embedder embedder = new TwoDimensionEmbedder();
        return Drain.builder().database(dataSource(), store).access(access)
                .connectors(Map.of("http", new HttpConnector("http", HTTP), "file", new FolderConnector(HTTP.bodyDeadline())))
                .pipeline(pool, new WindowChunker(1000, 256, 20, s -> s.split("\\s+").length), embedder, index,
                        new PipelineVersions(Map.of("http", "test", "file", "test"), ParserVersion.CURRENT, "window-test",
                                embedder.version()))
                .baseUris(source -> Optional.ofNullable(bases.get(source)))
                .throttle(shared, HEADROOM_PERCENT).work(temp.resolve("work"), 10_000_000).build();
    }

    /** The drained sources, as an operator configures them: the loopback server allowed explicitly. */
    private SourceAccess access() {
        java.util.Properties p = new java.util.Properties();
        URI web = bases.get("web");
        p.setProperty("sources.web.http-allow", web.getScheme() + "://" + web.getAuthority());
        p.setProperty("sources.web.http-allow-private", "true");
        p.setProperty("sources.folder.file-roots", temp.toString());
        return SourceAccess.fromProperties(p);
    }

    private static Drain.Request request(int limit, double rate) {
        return new Drain.Request(COHORT, OLD_PARSER, null, limit, rate, "test");
    }

    private void fail(String source, String docId, String sourceVersion) {
        fail(source, docId, sourceVersion, COHORT);
    }

    private void fail(String source, String docId, String sourceVersion, String fingerprint) {
        store.record(FailureEvidence.builder(source, docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint(fingerprint).parserVersion(OLD_PARSER).sourceVersion(sourceVersion).build());
    }

    /** A failure before the fetch: no source version, no payload, as a refused HEAD leaves it. */
    private static FailureEvidence beforeFetch(String docId, String fingerprint, String parser) {
        return FailureEvidence.builder("web", docId).errorClass(ErrorClass.PERMANENT_INPUT).reasonCode("fetch_refused")
                .errorFingerprint(fingerprint).parserVersion(parser).stage("preflight").build();
    }

    private Disposition disposition(String docId) {
        return store.find("web", docId).orElseThrow().disposition();
    }

    private static String query(String sql) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
