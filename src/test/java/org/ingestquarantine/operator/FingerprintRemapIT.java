package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.springframework.jdbc.core.JdbcTemplate;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.RemoteCause;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.HeadRefusalException;
import org.ingestquarantine.ingest.Preflight;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SummaryChecks;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures {@code fingerprints remap} moves the open records of an older fingerprint algorithm to the running one's
 * cohorts from the evidence they keep: version 1's one cohort of the HEAD's {@code empty} and {@code too_large}
 * refusals becomes two, with exact counts, the summaries equal to the records; a record whose fingerprint the running
 * version already gives is only stamped; one whose evidence cannot be recomputed is left and counted; the cohort
 * listing flags the older cohorts until then; a dry run changes nothing.
 */
class FingerprintRemapIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2026-11-20T08:00:00Z");

    @TempDir
    Path temp;

    private MutableClock clock;
    private QuarantineStore store;
    private OperatorService service;
    private FingerprintRemap remap;
    private Preflight preflight;
    private Path folder;

    @BeforeEach
    void setUp() throws Exception {
        clock = new MutableClock(T0);
        LocalPayloadStore payloads = new LocalPayloadStore(temp.resolve("objects"));
        store = new QuarantineStore(dataSource(), payloads, source -> Optional.of("docs-team"), clock);
        service = new OperatorService(dataSource(), store, payloads, clock);
        remap = new FingerprintRemap(dataSource(), payloads);
        folder = Files.createDirectories(temp.resolve("docs"));
        Properties p = new Properties();
        p.setProperty("sources.docs.file-roots", folder.toString());
        preflight = new Preflight(Map.of("file", new FolderConnector(Duration.ofSeconds(5))),
                SourceAccess.fromProperties(p), 10);
    }

    @Test
    void shouldSplitVersionOnesMixedCohortIntoTwoAndLeaveWhatCannotBeRecomputed() throws Exception {
        HeadRefusalException empty = null;
        HeadRefusalException large = null;
        for (String name : List.of("empty-1.pdf", "empty-2.pdf", "empty-3.pdf", "large-1.pdf", "large-2.pdf")) {
            HeadRefusalException refusal = refusal(name, name.startsWith("empty") ? new byte[0] : new byte[64]);
            record(name, refusal, refusal.reasonCode());
            empty = name.startsWith("empty") ? refusal : empty;
            large = name.startsWith("large") ? refusal : large;
        }
        String emptyCohort = ErrorFingerprint.of(empty);
        String largeCohort = ErrorFingerprint.of(large);
        String v1 = versionOne(empty);
        assertThat(versionOne(large)).as("one check in one place: one cohort in version 1").isEqualTo(v1);
        assertThat(List.of(emptyCohort, largeCohort)).doesNotContain(v1).doesNotHaveDuplicates();
        // the five as version 1 wrote them, before versioning: one cohort
        update("UPDATE quarantine SET error_fingerprint = '" + v1 + "', fingerprint_version = NULL");
        // a worker's failure (a RemoteCause root, never Reasoned): its fingerprint is the running version's already
        RemoteCause remote = new RemoteCause("org.ingestquarantine.parse.NotPdfException", "not a PDF",
                new StackTraceElement[] {
                        new StackTraceElement("org.ingestquarantine.parse.PdfSignature", "check", "PdfSignature.java", 40),
                        new StackTraceElement("org.ingestquarantine.parse.InProcessPdfParser", "parse", "InProcessPdfParser.java", 70),
                        new StackTraceElement("org.ingestquarantine.parse.WorkerMain", "answer", "WorkerMain.java", 60),
                        new StackTraceElement("org.ingestquarantine.parse.WorkerMain", "main", "WorkerMain.java", 52)});
        record("worker.pdf", new IllegalStateException("parser worker failed unexpectedly", remote), "not_pdf");
        String workerCohort = fingerprintOf("worker.pdf");
        // evidence that cannot be recomputed: no stack trace kept; a trace that is not the fingerprint's; a Reasoned
        // root whose record keeps another exception's reason (a SQLSTATE decided)
        store.record(FailureEvidence.builder("docs", "no-trace.pdf").errorClass(ErrorClass.PERMANENT_INPUT)
                .errorFingerprint(v1).reasonCode("empty").stage("preflight").parserVersion(ParserVersion.CURRENT).build());
        record("tampered.pdf", refusal("tampered.pdf", new byte[0]), "empty");
        update("UPDATE quarantine SET error_fingerprint = 'ffffffffffffffff' WHERE doc_id = 'tampered.pdf'");
        record("wrapped.pdf", new SQLException("connection lost", "08006",
                new PermanentInputException("empty", "the document has 0 bytes")), "db_unavailable");
        // a closed record of version 1 keeps its fingerprint
        record("closed.pdf", refusal("closed.pdf", new byte[0]), "empty");
        store.close("docs", "closed.pdf", org.ingestquarantine.quarantine.Disposition.UNINDEXABLE, "vendor", "docs-team");
        update("UPDATE quarantine SET fingerprint_version = NULL WHERE doc_id <> 'no-trace.pdf'");
        update("UPDATE quarantine SET error_fingerprint = '" + v1 + "' WHERE doc_id = 'closed.pdf'");

        CohortRow mixed = cohort(v1);
        assertThat(mixed.documents()).isEqualTo(6);
        assertThat(mixed.olderFingerprint()).isTrue();
        assertThat(mixed.olderFingerprintDocuments()).isEqualTo(6);
        assertThat(mixed.fingerprintVersion()).as("before versioning").isNull();
        assertThat(cohort(workerCohort).olderFingerprint()).isTrue();
        assertThat(service.cohorts(null, null, null).runningFingerprintVersion()).isEqualTo(ErrorFingerprint.VERSION);

        List<List<Object>> recordsBefore = SummaryChecks.rows(dataSource(), "SELECT * FROM quarantine ORDER BY dlq_id");
        List<List<Object>> summaryBefore = SummaryChecks.rows(dataSource(),
                "SELECT * FROM quarantine_summary ORDER BY source, parser_version, error_class, error_fingerprint,"
                        + " disposition, owner, stripe");
        RemapReport dry = remap.remap(true);

        assertThat(SummaryChecks.rows(dataSource(), "SELECT * FROM quarantine ORDER BY dlq_id")).as("dry run")
                .isEqualTo(recordsBefore);
        assertThat(SummaryChecks.rows(dataSource(), "SELECT * FROM quarantine_summary ORDER BY source,"
                + " parser_version, error_class, error_fingerprint, disposition, owner, stripe")).isEqualTo(summaryBefore);
        RemapReport done = remap.remap(false);

        for (RemapReport r : List.of(dry, done)) {
            assertThat(r.selected()).isEqualTo(9);
            assertThat(r.moved()).isEqualTo(5);
            assertThat(r.alreadyCurrent()).as("the worker's").isEqualTo(1);
            assertThat(r.leftBy()).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of(
                    FingerprintRecompute.NOT_REPRODUCED, 1L, FingerprintRemap.NO_STACK_TRACE, 1L,
                    FingerprintRecompute.REASON_NOT_THE_ROOTS, 1L)));
            assertThat(r.left()).isEqualTo(3);
            assertThat(r.changedMeanwhile()).isZero();
            assertThat(r.mappings()).containsExactlyInAnyOrder(
                    new RemapReport.Mapping("permanent_input", v1, emptyCohort, 3),
                    new RemapReport.Mapping("permanent_input", v1, largeCohort, 2));
        }
        assertThat(dry.dryRun()).isTrue();
        assertThat(done.dryRun()).isFalse();

        assertThat(cohort(emptyCohort)).satisfies(c -> {
            assertThat(c.documents()).isEqualTo(3);
            assertThat(c.olderFingerprint()).isFalse();
            assertThat(c.fingerprintVersion()).isEqualTo(ErrorFingerprint.VERSION);
        });
        assertThat(cohort(largeCohort).documents()).isEqualTo(2);
        assertThat(cohort(largeCohort).olderFingerprint()).isFalse();
        assertThat(cohort(workerCohort).olderFingerprint()).as("stamped, not moved").isFalse();
        assertThat(cohort(v1).documents()).as("only the record without a trace stays in version 1's cohort")
                .isEqualTo(1);
        assertThat(cohort(v1).olderFingerprint()).isTrue();
        assertThat(count("SELECT count(*) FROM quarantine WHERE doc_id = 'closed.pdf' AND error_fingerprint = '" + v1
                + "' AND fingerprint_version IS NULL")).as("closed records keep theirs").isEqualTo(1);
        assertThat(count("SELECT sum(documents) FROM quarantine_summary WHERE disposition = 'open'"
                + " AND error_fingerprint = '" + emptyCohort + "'")).isEqualTo(3);
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after the remap");

        RemapReport again = remap.remap(false);
        assertThat(again.selected()).as("only what could not be recomputed is left").isEqualTo(3);
        assertThat(again.moved()).isZero();
    }

    private CohortRow cohort(String fingerprint) {
        return service.cohorts(null, null, null).cohorts().stream().filter(c -> fingerprint.equals(c.errorFingerprint()))
                .findFirst().orElseThrow(() -> new AssertionError("no open cohort " + fingerprint));
    }

    private void record(String docId, Throwable failure, String reason) {
        clock.advance(Duration.ofSeconds(1));
        store.record(FailureEvidence.builder("docs", docId).errorClass(ErrorClass.PERMANENT_INPUT)
                .failure(failure, failure).reasonCode(reason).stage("preflight").parserVersion(ParserVersion.CURRENT)
                .deliveryKey(docId + "@" + clock.instant()).deliveryCount(1).build());
    }

    private HeadRefusalException refusal(String name, byte[] content) throws Exception {
        Path file = Files.write(folder.resolve(name), content);
        Throwable t = catchThrowable(() -> preflight.check(new IngestMessage("docs", name, file.toUri(), null, null, null)));
        assertThat(t).isInstanceOf(HeadRefusalException.class);
        return (HeadRefusalException) t;
    }

    /** @return the fingerprint version 1 gave: the root's type and top three frames, no reason (before V22's release) */
    private static String versionOne(Throwable failure) throws Exception {
        StringBuilder key = new StringBuilder(failure.getClass().getName());
        int counted = 0;
        for (StackTraceElement f : failure.getStackTrace()) {
            if (counted < 3 && !f.getClassName().startsWith("jdk.internal.reflect.")
                    && !f.getClassName().startsWith("java.lang.reflect.") && !f.getClassName().startsWith("java.lang.invoke.")
                    && !f.getClassName().contains("$$Lambda")) {
                key.append('\n').append(f.getClassName()).append('.').append(f.getMethodName());
                counted++;
            }
        }
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                .digest(key.toString().getBytes(StandardCharsets.UTF_8))).substring(0, 16);
    }

    private String fingerprintOf(String docId) throws SQLException {
        return new JdbcTemplate(dataSource()).queryForObject("SELECT error_fingerprint FROM quarantine WHERE doc_id = ?",
                String.class, docId);
    }

    private long count(String sql) throws SQLException {
        return new JdbcTemplate(dataSource()).queryForObject(sql, Long.class);
    }

    private void update(String sql) throws SQLException {
        new JdbcTemplate(dataSource()).update(sql);
    }
}
