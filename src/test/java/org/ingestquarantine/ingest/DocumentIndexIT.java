package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.CountingDriver;
import org.ingestquarantine.testsupport.SummaryChecks;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the index rejects stale writes, skips unchanged ones, never shows a searchable document without all its
 * chunks, and closes the open quarantine record of a document it indexes in the same transaction, at no cost to a
 * document without one.
 */
class DocumentIndexIT extends PostgresTestBase {

    private static final int DIMS = 4;
    private static final Instant T1 = Instant.parse("2025-01-01T00:00:00Z");
    private static final Instant T2 = Instant.parse("2025-02-01T00:00:00Z");

    @TempDir
    Path temp;

    private DocumentIndex index;

    @BeforeEach
    void setUp() {
        index = new DocumentIndex(dataSource(), DIMS);
    }

    @Test
    void shouldIndexANewDocumentWithAllItsChunksAndVectors() throws Exception {
        assertThat(index.index(doc("a", "v1", T1, "p1", 3))).isEqualTo(IndexOutcome.INDEXED);

        assertThat(index.state("folder", "a")).contains(DocumentState.SEARCHABLE);
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'a'")).isEqualTo(3);
        assertThat(query("SELECT embedding[2] * 100 FROM chunks WHERE doc_id = 'a' AND seq = 1")).isEqualTo(50);
        assertThat(index.countsByState("folder")).containsEntry(DocumentState.SEARCHABLE, 1L)
                .containsEntry(DocumentState.INDEXING, 0L);
    }

    @Test
    void shouldNameTheDocumentsWrittenSinceAnInstantButNotOneOnlyFoundUnchanged() throws Exception {
        index.index(doc("w1", "v1", T1, "p1", 1));
        Thread.sleep(20);
        java.time.Instant runStart = java.time.Instant.now();
        Thread.sleep(20);
        assertThat(index.index(doc("w1", "v1", T1, "p1", 1))).isEqualTo(IndexOutcome.UNCHANGED);
        index.index(doc("w2", "v1", T1, "p1", 1));

        assertThat(index.writtenSince("folder", runStart)).containsExactly("w2");
    }

    @Test
    void shouldSkipTheSameVersionWithTheSameComponentVersions() throws Exception {
        index.index(doc("b", "v1", T1, "p1", 2));

        assertThat(index.index(doc("b", "v1", T1, "p1", 5))).isEqualTo(IndexOutcome.UNCHANGED);
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'b'")).isEqualTo(2);
        assertThat(index.isCurrent("folder", "b", "v1", "p1", "c1", "e1")).isTrue();
        assertThat(index.isCurrent("folder", "b", "v1", "p2", "c1", "e1")).isFalse();
        assertThat(index.isCurrent("folder", "b", "v2", "p1", "c1", "e1")).isFalse();
        assertThat(index.isCurrent("folder", "other", "v1", "p1", "c1", "e1")).isFalse();
    }

    @Test
    void shouldReindexWhenTheParserChangesAndReplaceTheChunks() throws Exception {
        index.index(doc("c", "v1", T1, "p1", 4));

        assertThat(index.index(doc("c", "v1", T1, "p2", 2))).isEqualTo(IndexOutcome.INDEXED);
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'c'")).isEqualTo(2);
        assertThat(index.isCurrent("folder", "c", "v1", "p2", "c1", "e1")).isTrue();
    }

    @Test
    void shouldRejectAWriteOlderThanTheStoredVersion() throws Exception {
        index.index(doc("d", "v2", T2, "p1", 3));

        assertThat(index.index(doc("d", "v1", T1, "p1", 1))).isEqualTo(IndexOutcome.STALE_REJECTED);
        assertThat(index.isCurrent("folder", "d", "v2", "p1", "c1", "e1")).isTrue();
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'd'")).isEqualTo(3);

        assertThat(index.index(doc("d", "v3", T2.plusSeconds(1), "p1", 1))).isEqualTo(IndexOutcome.INDEXED);
    }

    @Test
    void shouldRefuseAVectorOfTheWrongWidthAndWriteNothing() throws Exception {
        List<IndexedChunk> chunks = List.of(new IndexedChunk(0, "t", new float[] {1, 2, 3}, 1, 1));
        IndexedDocument wrong = new IndexedDocument("folder", "e", "v1", T1, null, "p1", "c1", "e1", 1, chunks);

        assertThatThrownBy(() -> index.index(wrong))
                .isInstanceOf(DownstreamContractException.class)
                .hasMessageContaining("width 3")
                .extracting(e -> ((DownstreamContractException) e).reasonCode()).isEqualTo("vector_width");
        assertThat(index.state("folder", "e")).isEmpty();
    }

    @Test
    void shouldKeepThePreviousVersionWhenAChunkFailsMidWrite() throws Exception {
        index.index(doc("f", "v1", T1, "p1", 2));
        List<IndexedChunk> chunks = new ArrayList<>(doc("f", "v2", T2, "p1", 3).chunks());
        chunks.set(2, new IndexedChunk(2, "bad \u0000 byte", vector(2), 1, 1));  // PostgreSQL rejects NUL in text

        assertThatThrownBy(() -> index.index(new IndexedDocument("folder", "f", "v2", T2, null, "p1", "c1", "e1", 1,
                chunks))).isInstanceOf(IndexWriteException.class).hasMessageNotContaining("bad");

        assertThat(index.isCurrent("folder", "f", "v1", "p1", "c1", "e1")).isTrue();
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'f'")).isEqualTo(2);

        assertThatThrownBy(() -> index.index(new IndexedDocument("folder", "g", "v1", T1, null, "p1", "c1", "e1", 1,
                chunks))).isInstanceOf(IndexWriteException.class);
        assertThat(index.state("folder", "g")).isEmpty();
    }

    @Test
    void shouldNeverShowASearchableDocumentWithMissingChunksToAConcurrentReader() throws Exception {
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicLong inconsistent = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Thread reader = new Thread(() -> {
            String sql = "SELECT count(*) FROM documents d WHERE d.state <> 'searchable' OR d.chunk_count <>"
                    + " (SELECT count(*) FROM chunks c WHERE c.source = d.source AND c.doc_id = d.doc_id)";
            try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
                while (writing.get()) {
                    try (ResultSet rs = s.executeQuery(sql)) {
                        rs.next();
                        inconsistent.addAndGet(rs.getLong(1));
                        reads.incrementAndGet();
                    }
                }
            } catch (Exception e) {
                inconsistent.set(-1_000_000);
            }
        });
        reader.start();
        try {
            for (int version = 1; version <= 40; version++) {
                index.index(doc("h", "v" + version, T1.plusSeconds(version), "p1", 1 + version % 7));
            }
        } finally {
            writing.set(false);
            reader.join();
        }
        assertThat(reads.get()).isPositive();
        assertThat(inconsistent.get()).isZero();
    }

    @Test
    void shouldSerialiseConcurrentWritersOfOneDocument() throws Exception {
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int n = w;
            writers.add(new Thread(() -> index.index(doc("i", "v" + n, T1.plusSeconds(n), "p1", 2 + n))));
        }
        writers.forEach(Thread::start);
        for (Thread t : writers) {
            t.join();
        }
        // whatever the order, the stored version is the latest and its chunks are complete
        assertThat(index.isCurrent("folder", "i", "v3", "p1", "c1", "e1")).isTrue();
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'i'")).isEqualTo(5);
    }

    @Test
    void shouldLeaveNoChunkOfAVersionCommittedUnderAConcurrentWriter() throws Exception {
        // the latest version has the FEWEST chunks: a writer whose snapshot missed a concurrent writer's extra
        // chunks would leave them behind
        for (int round = 0; round < 10; round++) {
            String id = "r" + round;
            List<Thread> writers = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                int n = w;
                writers.add(new Thread(() -> index.index(doc(id, "v" + n, T1.plusSeconds(n), "p1", 6 - n))));
            }
            writers.forEach(Thread::start);
            for (Thread t : writers) {
                t.join();
            }
            assertThat(index.isCurrent("folder", id, "v3", "p1", "c1", "e1")).as("round %d", round).isTrue();
            assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = '" + id + "'")).as("round %d", round)
                    .isEqualTo(3);
        }
    }

    @Test
    void shouldCloseTheAttemptInTheSameStatement() throws Exception {
        long indexed = attempt("ka");
        long skipped = attempt("kb");
        long failed = attempt("kc");

        assertThat(index.index(doc("j", "v1", T1, "p1", 2), indexed)).isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(doc("j", "v1", T1, "p1", 2), skipped)).isEqualTo(IndexOutcome.UNCHANGED);
        List<IndexedChunk> bad = List.of(new IndexedChunk(0, "nul \u0000", vector(0), 1, 1));
        assertThatThrownBy(() -> index.index(new IndexedDocument("folder", "k", "v1", T1, null, "p1", "c1", "e1", 1,
                bad), failed)).isInstanceOf(IndexWriteException.class);

        assertThat(outcome(indexed)).isEqualTo("indexed/index");
        assertThat(outcome(skipped)).isEqualTo("skipped/index");
        assertThat(outcome(failed)).as("nothing committed: the attempt stays open").isEqualTo("null/null");
    }

    @Test
    void shouldCloseTheOpenRecordOfADocumentThatALaterDeliveryIndexesWithTheDrainsRule() throws Exception {
        QuarantineStore store = store();
        byte[] failedBytes = "the bytes that failed".getBytes(StandardCharsets.UTF_8);
        Path payload = Files.write(temp.resolve("failed.pdf"), failedBytes);
        store.record(failure("version", "v1", null, "p1"));                // the etag moved: v1 -> v2
        store.record(failure("bytes", null, payload, "p1"));               // no etag known, the bytes moved
        store.record(failure("parser", "v1", payload, "p0"));              // same etag and bytes, parser p0 -> p1
        store.record(failure("nothing", "v1", payload, "p1"));             // nothing the record holds differs
        long attempt = attempt("kr");

        assertThat(index.index(doc("version", "v2", T1, "p1", 2), attempt)).isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(docWithSha("bytes", "v1", sha256("other bytes".getBytes(StandardCharsets.UTF_8)))))
                .isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(docWithSha("parser", "v1", sha256(failedBytes)))).isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(docWithSha("nothing", "v1", sha256(failedBytes)))).isEqualTo(IndexOutcome.INDEXED);

        assertClosed(store, "version", Disposition.REPAIRED_CONTENT_CHANGED, "no_text_layer");
        assertClosed(store, "bytes", Disposition.REPAIRED_CONTENT_CHANGED, "no_text_layer");
        assertClosed(store, "parser", Disposition.REPAIRED_PARSER_FIXED, "no_text_layer");
        assertClosed(store, "nothing", Disposition.REPAIRED_PARSER_FIXED, RepairClose.NO_CHANGE_SEEN);
        assertThat(outcome(attempt)).as("the attempt closed in the same transaction").isEqualTo("indexed/index");
        assertThat(query("SELECT count(*) FROM quarantine_attempt")).as("a close appends no attempt (as the drain)")
                .isEqualTo(4);
        assertThat(query("SELECT count(*) FROM chunks WHERE doc_id = 'version'")).isEqualTo(2);
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after the closes");
        assertThat(query("SELECT indexed * 10 + open_indexed FROM source_summary WHERE source = 'folder'"))
                .as("4 indexed, none with an open record").isEqualTo(40);
        assertThat(query("SELECT count(*) FROM quarantine_summary WHERE disposition = 'open'")).isZero();
    }

    /**
     * The live close judges by the strongest evidence held on both sides, as the drain does: the payload's sha256
     * first (the same bytes under a fresh ETag are not a content change), the source version only where no digest
     * is held, and none where neither is; the record keeps which decided ({@code verdict_by}).
     */
    @Test
    void shouldJudgeTheLiveCloseByThePayloadsSha256BeforeTheVersion() throws Exception {
        QuarantineStore store = store();
        byte[] failedBytes = "the bytes that failed".getBytes(StandardCharsets.UTF_8);
        Path payload = Files.write(temp.resolve("failed.pdf"), failedBytes);
        store.record(failure("resaved", "\"e1\"", payload, "p0"));       // same bytes, a fresh weak ETag
        store.record(failure("moved", "v1", null, "p0"));                 // no digest held: the version decides
        store.record(failure("unknown", null, null, "p0"));               // neither held

        assertThat(index.index(docWithSha("resaved", "W/\"resaved-1\"", sha256(failedBytes))))
                .isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(docWithSha("moved", "v2", sha256(new byte[] {3})))).isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(docWithSha("unknown", "v1", sha256(new byte[] {4})))).isEqualTo(IndexOutcome.INDEXED);

        assertClosed(store, "resaved", Disposition.REPAIRED_PARSER_FIXED, "no_text_layer");
        assertClosed(store, "moved", Disposition.REPAIRED_CONTENT_CHANGED, "no_text_layer");
        assertClosed(store, "unknown", Disposition.REPAIRED_PARSER_FIXED, "no_text_layer");
        assertThat(store.find("folder", "resaved").orElseThrow().verdictBy()).isEqualTo("sha256");
        assertThat(store.find("folder", "moved").orElseThrow().verdictBy()).isEqualTo("version");
        assertThat(store.find("folder", "unknown").orElseThrow().verdictBy()).isEqualTo("none");
    }

    /**
     * A record whose failure came before the fetch holds no source version and no payload: nothing it holds says
     * the bytes changed, so the close is {@code repaired_parser_fixed} (the drain closes such a record the same
     * way, DrainIT), with {@value RepairClose#NO_CHANGE_SEEN} when the parser is the record's too.
     */
    @Test
    void shouldCloseARecordWithoutASourceVersionAsParserFixed() throws Exception {
        QuarantineStore store = store();
        store.record(failure("before-fetch-p0", null, null, "p0"));
        store.record(failure("before-fetch-p1", null, null, "p1"));
        assertThat(store.find("folder", "before-fetch-p0").orElseThrow().sourceVersion()).isNull();
        assertThat(store.find("folder", "before-fetch-p0").orElseThrow().payloadSha256()).isNull();

        assertThat(index.index(docWithSha("before-fetch-p0", "v1", sha256(new byte[] {1})))).isEqualTo(IndexOutcome.INDEXED);
        assertThat(index.index(docWithSha("before-fetch-p1", "v1", sha256(new byte[] {2})))).isEqualTo(IndexOutcome.INDEXED);

        assertClosed(store, "before-fetch-p0", Disposition.REPAIRED_PARSER_FIXED, "no_text_layer");
        assertClosed(store, "before-fetch-p1", Disposition.REPAIRED_PARSER_FIXED, RepairClose.NO_CHANGE_SEEN);
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after closing records without a version");
    }

    @Test
    void shouldLeaveTheRecordOpenWhenTheWriteIsStaleUnchangedOrFails() throws Exception {
        QuarantineStore store = store();
        index.index(doc("s", "v2", T2, "p1", 1));
        index.index(doc("u", "v1", T1, "p1", 1));
        store.record(failure("s", "v3", null, "p1"));   // a later version failed after v2 was indexed
        store.record(failure("u", "v1", null, "p1"));
        store.record(failure("f", "v1", null, "p1"));
        long failed = attempt("kf");

        assertThat(index.index(doc("s", "v1", T1, "p1", 1))).isEqualTo(IndexOutcome.STALE_REJECTED);
        assertThat(index.index(doc("u", "v1", T1, "p1", 1))).isEqualTo(IndexOutcome.UNCHANGED);
        List<IndexedChunk> bad = List.of(new IndexedChunk(0, "nul \u0000", vector(0), 1, 1));
        assertThatThrownBy(() -> index.index(new IndexedDocument("folder", "f", "v2", T1, null, "p1", "c1", "e1", 1,
                bad), failed)).isInstanceOf(IndexWriteException.class);

        for (String id : List.of("s", "u", "f")) {
            assertThat(store.find("folder", id).orElseThrow().disposition()).as(id).isEqualTo(Disposition.OPEN);
        }
        assertThat(index.state("folder", "f")).as("nothing committed").isEmpty();
        assertThat(outcome(failed)).as("nothing committed: the attempt stays open").isEqualTo("null/null");
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after writes that closed nothing");
    }

    @Test
    void shouldCostOneStatementWithoutARecordAndOneTransactionOfThreeStatementsWithOne() throws Exception {
        CountingDriver.install();
        try (Database counted = Database.open(CountingDriver.PREFIX + postgres.jdbcUrl().substring("jdbc:".length()),
                postgres.user(), postgres.password())) {
            DocumentIndex countedIndex = new DocumentIndex(counted.dataSource(), DIMS);
            store().record(failure("with-record", "v1", null, "p1"));
            countedIndex.index(doc("warm", "v1", T1, "p1", 1));

            CountingDriver.reset();
            assertThat(countedIndex.index(doc("no-record", "v1", T1, "p1", 3), attempt("kn")))
                    .isEqualTo(IndexOutcome.INDEXED);
            assertThat(trips()).as("no record: the one index statement, " + CountingDriver.byThread())
                    .containsExactly(1L, 1L);

            CountingDriver.reset();
            assertThat(countedIndex.index(doc("with-record", "v2", T1, "p1", 3), attempt("kw")))
                    .isEqualTo(IndexOutcome.INDEXED);
            assertThat(trips()).as("an open record: the guarded statement, then write, close, commit; "
                    + CountingDriver.byThread()).containsExactly(4L, 2L);
            assertThat(store().find("folder", "with-record").orElseThrow().disposition())
                    .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);

            store().record(failure("seen", "v1", null, "p1"));
            CountingDriver.reset();
            assertThat(countedIndex.index(doc("seen", "v2", T1, "p1", 3), attempt("ks"), true))
                    .isEqualTo(IndexOutcome.INDEXED);
            assertThat(trips()).as("an open record seen at admission: write, close, commit; "
                    + CountingDriver.byThread()).containsExactly(3L, 1L);
            assertThat(store().find("folder", "seen").orElseThrow().disposition())
                    .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
        }
    }

    @Test
    void shouldOrderAFailureWrittenDuringAClosingWriteAfterTheCloseSoItReopensTheRecord() throws Exception {
        QuarantineStore store = store();
        store.record(failure("lk", "v1", null, "p1"));
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection c = dataSource().getConnection()) {
            c.setAutoCommit(false);
            // a closing write (the drain's order: write, then RepairClose, one transaction) has written the document
            assertThat(index.write(c, doc("lk", "v2", T1, "p1", 1))).isEqualTo(IndexOutcome.INDEXED);
            // meanwhile another delivery of the document fails and writes its record
            Future<QuarantineRecord> failing = other.submit(() -> store.record(failure("lk", "v1", null, "p1")));
            Thread.sleep(300);
            assertThat(failing).as("the failure waits for the record's lock, taken by the write").isNotDone();
            assertThat(RepairClose.close(c, doc("lk", "v2", T1, "p1", 1),
                    Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS)).orElseThrow().disposition())
                    .isEqualTo("repaired_content_changed");
            c.commit();
            assertThat(failing.get(10, TimeUnit.SECONDS).disposition())
                    .as("the failure, after the close, re-opens the record").isEqualTo(Disposition.OPEN);
        } finally {
            other.shutdownNow();
        }
        assertThat(store.find("folder", "lk").orElseThrow().attempts()).isEqualTo(2);
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after a close and a concurrent failure");
    }

    /** @return this thread's round trips (validations on borrow left out) and commits */
    private static List<Long> trips() {
        CountingDriver.Counts c = CountingDriver.byThread().get(Thread.currentThread().getName().replaceAll("[0-9]+", "#"));
        long validations = c.statements.containsKey("<isValid>") ? c.statements.get("<isValid>").sum() : 0;
        return List.of(c.roundTrips.sum() - validations, c.commits.sum());
    }

    private QuarantineStore store() {
        return new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")), Clock.systemUTC());
    }

    private static FailureEvidence failure(String id, String version, Path payload, String parser) {
        return FailureEvidence.builder("folder", id).errorClass(ErrorClass.PERMANENT_INPUT).reasonCode("no_text_layer")
                .errorFingerprint("fp-" + id).sourceVersion(version).payload(payload).parserVersion(parser)
                .stage("parse").build();
    }

    private static void assertClosed(QuarantineStore store, String id, Disposition disposition, String reason) {
        QuarantineRecord r = store.find("folder", id).orElseThrow();
        assertThat(r.disposition()).as("disposition of %s", id).isEqualTo(disposition);
        assertThat(r.reasonCode()).as("reason of %s", id).isEqualTo(reason);
        assertThat(r.closedAt()).as("closed_at of %s", id).isNotNull();
    }

    private static IndexedDocument docWithSha(String id, String version, String sha) {
        IndexedDocument d = doc(id, version, T1, "p1", 1);
        return new IndexedDocument(d.source(), d.docId(), d.sourceVersion(), d.sourceUpdatedAt(), sha,
                d.parserVersion(), d.chunkerVersion(), d.embedderVersion(), d.pageCount(), d.chunks());
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static long attempt(String key) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("INSERT INTO attempt_journal (delivery_key, delivery_count, started_at)"
                     + " VALUES ('" + key + "', 1, now()) RETURNING attempt_id")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String outcome(long attemptId) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT outcome, stage, closed_at IS NULL FROM attempt_journal"
                     + " WHERE attempt_id = " + attemptId)) {
            rs.next();
            return rs.getString(1) + "/" + rs.getString(2);
        }
    }

    private static IndexedDocument doc(String id, String version, Instant updatedAt, String parser, int chunkCount) {
        List<IndexedChunk> chunks = new ArrayList<>();
        for (int i = 0; i < chunkCount; i++) {
            chunks.add(new IndexedChunk(i, "chunk " + i, vector(i), i + 1, i + 1));
        }
        return new IndexedDocument("folder", id, version, updatedAt, null, parser, "c1", "e1", chunkCount, chunks);
    }

    private static float[] vector(int i) {
        return new float[] {i, 0.5f, 0.25f, 0.125f};
    }

    private static long query(String sql) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
