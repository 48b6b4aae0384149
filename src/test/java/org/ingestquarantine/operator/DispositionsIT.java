package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.AttemptOutcome;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures dispose keeps coverage, expiry keeps rows, erasure leaves no byte of the document, and pruning spares open attempts. */
class DispositionsIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    private static final String MARKER = "Zebra kettles whistle at the quarry 4471";

    @TempDir
    Path temp;

    private MutableClock clock;
    private LocalPayloadStore payloads;
    private QuarantineStore store;
    private DocumentIndex index;
    private OperatorService service;
    private Dispositions dispositions;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        payloads = new LocalPayloadStore(temp.resolve("objects"));
        store = new QuarantineStore(dataSource(), payloads, clock);
        index = new DocumentIndex(dataSource(), 2);
        service = new OperatorService(dataSource(), store, payloads, clock);
        dispositions = new Dispositions(dataSource(), store, payloads, clock);
    }

    @Test
    void shouldMoveACohortToUnindexableWithoutChangingCoverage() {
        new SourceTotals(dataSource(), clock).record("s", 6, "folder-1", null);
        indexDoc("s", "good-1", "text");
        indexDoc("s", "good-2", "text");
        fail("s", "a", "fp-x", "p1");
        fail("s", "b", "fp-x", "p1");
        fail("s", "c", "fp-x", "p2");
        fail("s", "d", "fp-y", "p1");
        List<String> before = coverageFigures();

        int moved = dispositions.disposeUnindexable("fp-x", "p1", "vendor_format", "legal-ops");

        assertThat(moved).isEqualTo(2);
        assertThat(coverageFigures()).isEqualTo(before);
        QuarantineRecord a = store.find("s", "a").orElseThrow();
        assertThat(a.disposition()).isEqualTo(Disposition.UNINDEXABLE);
        assertThat(a.reasonCode()).isEqualTo("vendor_format");
        assertThat(a.owner()).isEqualTo("legal-ops");
        assertThat(store.find("s", "c").orElseThrow().disposition()).isEqualTo(Disposition.OPEN);
        assertThat(dispositions.disposeUnindexable("fp-x", null, "vendor_format", "legal-ops")).isEqualTo(1);
        assertThat(coverageFigures()).isEqualTo(before);
    }

    /**
     * Erasing closes a record without indexing its document: like disposing it unindexable, that must not raise
     * coverage. The erased document stays in the denominator, in the operator's coverage and the pipeline's.
     */
    @Test
    void shouldKeepAnErasedDocumentInCoverageAsAnUnindexableOne() {
        new SourceTotals(dataSource(), clock).record("s", 4, "folder-1", null);
        indexDoc("s", "good-1", "text");
        indexDoc("s", "good-2", "text");
        fail("s", "a", "fp-x", "p1");
        fail("s", "b", "fp-x", "p1");
        List<String> before = coverageFigures();
        assertThat(before).containsExactly("s 0.5 of 4");

        dispositions.erase("s", "a");
        dispositions.disposeUnindexable("fp-x", null, "vendor_format", "legal-ops");

        assertThat(coverageFigures()).as("erased and unindexable both stay in the denominator").isEqualTo(before);
        assertThat(service.coverage()).singleElement().satisfies(r -> {
            assertThat(r.erased()).isEqualTo(1);
            assertThat(r.unindexable()).isEqualTo(1);
        });
        assertThat(new org.ingestquarantine.quarantine.QuarantineQueries(dataSource()).coverage(List.of("s")))
                .singleElement().satisfies(c -> assertThat(c.coverage()).as("the ingest summary's coverage").isEqualTo(0.5));

        // an indexed document without a record leaves a tombstone too: it leaves the index, not the denominator
        dispositions.erase("s", "good-1");
        assertThat(coverageFigures()).isEqualTo(List.of("s 0.25 of 4"));
    }

    /**
     * The user's case: a folder of 13 files, 5 indexed; erasing an indexed document that never failed gave 5/12
     * (it left the denominator with no tombstone). It must give 4/13 from the operator and the pipeline alike, the
     * tombstone must hold nothing of the document, the summaries must follow, and a later publish must count again.
     */
    @Test
    void shouldLeaveATombstoneWhenErasingAnIndexedDocumentThatNeverFailed() throws Exception {
        store = new QuarantineStore(dataSource(), payloads, source -> java.util.Optional.of("team-" + source), clock);
        dispositions = new Dispositions(dataSource(), store, payloads, clock);
        new SourceTotals(dataSource(), clock).record("s", 13, "folder-1", null);
        for (int i = 0; i < 6; i++) {
            indexDoc("s", "good-" + i, "text");
        }
        for (int i = 0; i < 7; i++) {
            fail("s", "bad-" + i, "fp-x", "p1");
        }
        assertThat(coverageFigures()).containsExactly("s " + (6.0 / 13) + " of 13");
        clock.advance(Duration.ofMinutes(5));

        QuarantineRecord tombstone = dispositions.erase("s", "good-0");

        assertThat(coverageFigures()).as("the erased document stays in the denominator")
                .containsExactly("s " + (5.0 / 13) + " of 13");
        assertThat(new org.ingestquarantine.quarantine.QuarantineQueries(dataSource()).coverage(List.of("s")))
                .singleElement().satisfies(c -> assertThat(c.coverage()).as("the ingest summary's coverage")
                        .isEqualTo(5.0 / 13));
        assertThat(index.state("s", "good-0")).isEmpty();
        assertThat(store.find("s", "good-0").orElseThrow().dlqId()).isEqualTo(tombstone.dlqId());
        assertThat(tombstone.disposition()).isEqualTo(Disposition.ERASED);
        assertThat(tombstone.reasonCode()).isEqualTo("erased");
        assertThat(tombstone.owner()).as("the source's configured owner").isEqualTo("team-s");
        assertThat(tombstone.closedAt()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
        assertThat(tombstone.attempts()).as("it never failed").isZero();
        assertThat(store.attempts(tombstone.dlqId())).isEmpty();
        assertThat(tombstone.payloadUri()).isNull();
        assertThat(tombstone.payloadSha256()).isNull();
        assertThat(tombstone.sourceVersion()).isNull();
        assertThat(tombstone.errorMessage()).isNull();
        org.ingestquarantine.testsupport.SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after the erasure");
        assertThat(dispositions.erase("s", "good-0").dlqId()).as("erasing again keeps the one tombstone")
                .isEqualTo(tombstone.dlqId());

        // published again and failing: a new arrival, the tombstone re-opens with that failure as its attempt 1
        QuarantineRecord again = store.record(FailureEvidence.builder("s", "good-0").errorClass(ErrorClass.PERMANENT_INPUT)
                .failure(new IllegalStateException("second")).deliveryKey("msg-2").deliveryCount(1).build());
        assertThat(again.dlqId()).isEqualTo(tombstone.dlqId());
        assertThat(again.disposition()).isEqualTo(Disposition.OPEN);
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(store.attempts(again.dlqId())).singleElement().satisfies(a -> assertThat(a.attemptNo()).isEqualTo(1));
        assertThat(coverageFigures()).containsExactly("s " + (5.0 / 13) + " of 13");
        org.ingestquarantine.testsupport.SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after the new failure");

        // erased again, then published again and indexed: it counts as indexed, not erased
        dispositions.erase("s", "good-1");
        assertThat(coverageFigures()).containsExactly("s " + (4.0 / 13) + " of 13");
        indexDoc("s", "good-1", "text");
        assertThat(coverageFigures()).containsExactly("s " + (5.0 / 13) + " of 13");
        assertThat(service.coverage()).singleElement().satisfies(r -> assertThat(r.erased()).isZero());
        org.ingestquarantine.testsupport.SummaryChecks.assertSummariesMatchTheRecords(dataSource(), "after the re-index");
    }

    @Test
    void shouldRefuseAnUnknownFingerprintAndChangeNothing() {
        fail("s", "a", "fp-x", "p1");

        assertThatThrownBy(() -> dispositions.disposeUnindexable("fp-none", null, "vendor_format", "team"))
                .isInstanceOf(BadOperatorInputException.class)
                .hasMessage("no open record has fingerprint fp-none; list cohorts with 'cohorts'");
        assertThatThrownBy(() -> dispositions.disposeUnindexable("fp-x", null, " ", "team"))
                .isInstanceOf(BadOperatorInputException.class);
        assertThat(store.find("s", "a").orElseThrow().disposition()).isEqualTo(Disposition.OPEN);
    }

    @Test
    void shouldExpireOldPayloadsButKeepRowsAndBytesStillNamedByYoungerRecords() throws Exception {
        Path shared = Files.write(temp.resolve("shared.bin"), "shared bytes".getBytes(StandardCharsets.US_ASCII));
        Path unique = Files.write(temp.resolve("unique.bin"), "unique bytes".getBytes(StandardCharsets.US_ASCII));
        QuarantineRecord oldShared = failWithPayload("s", "old-shared", shared);
        QuarantineRecord oldUnique = failWithPayload("s", "old-unique", unique);
        clock.advance(Duration.ofDays(100));
        QuarantineRecord young = failWithPayload("t", "young", shared);

        int expired = dispositions.expirePayloads(Duration.ofDays(90));

        assertThat(expired).isEqualTo(2);
        QuarantineRecord after = store.findById(oldUnique.dlqId()).orElseThrow();
        assertThat(after.payloadUri()).isNull();
        assertThat(after.payloadSha256()).isEqualTo(oldUnique.payloadSha256());
        assertThat(payloads.exists(oldUnique.payloadUri())).isFalse();
        assertThat(store.findById(oldShared.dlqId()).orElseThrow().payloadUri()).isNull();
        assertThat(payloads.exists(young.payloadUri())).as("still named by a younger record").isTrue();
        assertThat(store.findById(young.dlqId()).orElseThrow().payloadUri()).isEqualTo(young.payloadUri());
        assertThat(dispositions.expirePayloads(Duration.ofDays(90))).isZero();
    }

    /**
     * Neither the marker sentence nor the content's sha256 survives anywhere: for a folder source the source
     * version IS the sha256, so the record's and every attempt's source_version go with the payload hashes. Nor
     * does the URI it was fetched from (it can name the document), on the record or any attempt.
     */
    @Test
    void shouldEraseEveryByteOfTheDocumentAndLeaveATombstone() throws Exception {
        byte[] content = ("page one. " + MARKER + ". page two.").getBytes(StandardCharsets.UTF_8);
        Path payload = Files.write(temp.resolve("doc.txt"), content);
        String sha256 = java.util.HexFormat.of().formatHex(
                java.security.MessageDigest.getInstance("SHA-256").digest(content));
        index.index(new IndexedDocument("s", "secret.pdf", sha256, T0, sha256, "p1", "c1", "e1", 1,
                List.of(new IndexedChunk(0, "chunk quoting " + MARKER, new float[] {1, 0}, 1, 1))));
        String uri = "https://docs.example/merger-plans/zebra-kettles-4471.pdf";
        for (int delivery = 1; delivery <= 2; delivery++) {
            store.record(FailureEvidence.builder("s", "secret.pdf").errorClass(ErrorClass.DOWNSTREAM_CONTRACT)
                    .failure(new IllegalStateException("refused chunk: " + MARKER)).payload(payload).stage("embed")
                    .sourceUri(uri).sourceVersion(sha256).sourceUpdatedAt(T0).deliveryKey("msg-1")
                    .deliveryCount(delivery).build());
        }
        store.record(FailureEvidence.builder("s", "other.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint("fp").sourceUri("https://docs.example/other.pdf")
                .payload(Files.write(temp.resolve("o.txt"), "other".getBytes(StandardCharsets.UTF_8))).build());
        assertThat(placesHoldingMarker()).as("the test can see the marker before erasure")
                .contains("objects", "quarantine", "chunks");
        assertThat(placesHolding(sha256)).as("the test can see the hash before erasure")
                .contains("quarantine", "quarantine_attempt", "documents");
        assertThat(placesHolding(uri)).as("the test can see the URI before erasure")
                .containsExactlyInAnyOrder("quarantine", "quarantine_attempt");

        QuarantineRecord tombstone = dispositions.erase("s", "secret.pdf");

        assertThat(placesHoldingMarker()).isEmpty();
        assertThat(placesHolding(sha256)).as("the content's sha256, in any column of any row").isEmpty();
        assertThat(placesHolding(uri)).as("the URI it was fetched from, in any column of any row").isEmpty();
        assertThat(tombstone.sourceUri()).isNull();
        assertThat(tombstone.disposition()).isEqualTo(Disposition.ERASED);
        assertThat(tombstone.payloadUri()).isNull();
        assertThat(tombstone.errorMessage()).isNull();
        assertThat(tombstone.sourceVersion()).isNull();
        assertThat(tombstone.sourceUpdatedAt()).isNull();
        assertThat(index.state("s", "secret.pdf")).isEmpty();
        assertThat(store.attempts(tombstone.dlqId())).hasSize(2).allSatisfy(a -> {
            assertThat(a.payloadSha256()).isNull();
            assertThat(a.sourceVersion()).isNull();
            assertThat(a.sourceUri()).isNull();
        });
        assertThat(store.find("s", "other.pdf").orElseThrow().payloadUri()).isNotNull();
        assertThat(store.find("s", "other.pdf").orElseThrow().sourceUri()).as("another record keeps its URI")
                .isEqualTo("https://docs.example/other.pdf");
        assertThatThrownBy(() -> dispositions.erase("s", "never-seen.pdf")).isInstanceOf(BadOperatorInputException.class);
    }

    /**
     * The operator erased what was held; the producer then publishes the same document again and it fails again:
     * a new arrival. The record re-opens with that attempt's evidence, so the record (what the ingest summary
     * counts), its attempt history and coverage tell the same failure, and the new bytes are named by the record
     * (not left in the object store under a record that names none).
     */
    @Test
    void shouldTreatADocumentPublishedAgainAfterErasureAsANewArrival() throws Exception {
        new SourceTotals(dataSource(), clock).record("s", 1, "folder-1", null);
        Path first = Files.write(temp.resolve("first.bin"), "first bytes".getBytes(StandardCharsets.US_ASCII));
        store.record(FailureEvidence.builder("s", "again.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .failure(new IllegalStateException("first")).payload(first).deliveryKey("msg-1").deliveryCount(1).build());
        dispositions.erase("s", "again.pdf");
        Path second = Files.write(temp.resolve("second.bin"), "second bytes".getBytes(StandardCharsets.US_ASCII));

        QuarantineRecord again = store.record(FailureEvidence.builder("s", "again.pdf")
                .errorClass(ErrorClass.PERMANENT_INPUT).reasonCode("not_pdf").failure(new IllegalStateException("second"))
                .payload(second).deliveryKey("msg-2").deliveryCount(1).build());

        assertThat(again.disposition()).isEqualTo(Disposition.OPEN);
        assertThat(again.closedAt()).isNull();
        assertThat(again.attempts()).isEqualTo(2);
        List<org.ingestquarantine.quarantine.QuarantineAttempt> history = store.attempts(again.dlqId());
        assertThat(history).hasSize(2);
        assertThat(history.get(0).payloadSha256()).as("the erased attempt stays erased").isNull();
        org.ingestquarantine.quarantine.QuarantineAttempt latest = history.get(1);
        assertThat(again.errorClass().code() + "/" + again.reasonCode()).as("the record counts what its latest attempt says")
                .isEqualTo(latest.errorClass().code() + "/" + latest.reasonCode()).isEqualTo("permanent_input/not_pdf");
        assertThat(again.payloadUri()).isNotNull();
        assertThat(payloads.get(again.payloadUri())).isEqualTo(Files.readAllBytes(second));
        assertThat(again.errorMessage()).contains("second");
        assertThat(service.coverage()).singleElement().satisfies(r -> {
            assertThat(r.openQuarantined()).isEqualTo(1);
            assertThat(r.erased()).isZero();
        });
    }

    @Test
    void shouldKeepPayloadBytesThatAnotherRecordStillNamesWhenErasing() throws Exception {
        Path shared = Files.write(temp.resolve("same.bin"), "the same bytes".getBytes(StandardCharsets.US_ASCII));
        QuarantineRecord erasing = failWithPayload("s", "erasing", shared);
        QuarantineRecord other = failWithPayload("t", "other", shared);
        assertThat(other.payloadUri()).as("content-addressed: one object").isEqualTo(erasing.payloadUri());

        QuarantineRecord tombstone = dispositions.erase("s", "erasing");

        assertThat(tombstone.payloadUri()).isNull();
        assertThat(payloads.exists(other.payloadUri())).as("still named by another record").isTrue();
        assertThat(payloads.get(other.payloadUri())).isEqualTo(Files.readAllBytes(shared));
        assertThat(store.findById(other.dlqId()).orElseThrow().payloadUri()).isEqualTo(other.payloadUri());

        dispositions.erase("t", "other");
        assertThat(payloads.exists(other.payloadUri())).as("named by no record any more").isFalse();
    }

    @Test
    void shouldPruneOnlyClosedJournalRowsPastTheAge() throws Exception {
        AttemptJournal journal = new AttemptJournal(dataSource(), clock);
        long oldClosed = journal.open("k1", "s", "a", 1);
        journal.close(oldClosed, AttemptOutcome.INDEXED);
        long oldOpen = journal.open("k2", "s", "b", 1);
        clock.advance(Duration.ofDays(40));
        long youngClosed = journal.open("k3", "s", "c", 1);
        journal.close(youngClosed, AttemptOutcome.QUARANTINED);

        assertThat(dispositions.pruneJournal(Duration.ofDays(30))).isEqualTo(1);

        assertThat(journalIds()).containsExactlyInAnyOrder(oldOpen, youngClosed);
        assertThatThrownBy(() -> dispositions.pruneJournal(Duration.ZERO)).isInstanceOf(BadOperatorInputException.class);
    }

    /** @return per source: coverage and its denominator */
    private List<String> coverageFigures() {
        return service.coverage().stream().map(r -> r.source() + " " + r.coverage() + " of "
                + (r.indexed() + r.openQuarantined() + r.unindexable() + r.erased())).toList();
    }

    private List<String> placesHoldingMarker() throws Exception {
        List<String> places = placesHolding(MARKER);
        try (Stream<Path> files = Files.walk(temp.resolve("objects"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (new String(Files.readAllBytes(f), StandardCharsets.UTF_8).contains(MARKER)) {
                    places.add("objects");
                }
            }
        }
        return places;
    }

    /** @return the tables with a row whose text (every column) contains {@code text} */
    private List<String> placesHolding(String text) throws Exception {
        assertThat(SqlCount.tables(dataSource()))
                .contains("quarantine", "quarantine_attempt", "chunks", "documents", "attempt_journal");
        return SqlCount.tablesHolding(dataSource(), text);
    }

    private List<Long> journalIds() throws Exception {
        List<Long> ids = new ArrayList<>();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT attempt_id FROM attempt_journal")) {
            while (rs.next()) {
                ids.add(rs.getLong(1));
            }
        }
        return ids;
    }

    private void fail(String source, String docId, String fingerprint, String parser) {
        store.record(FailureEvidence.builder(source, docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint(fingerprint).parserVersion(parser).build());
    }

    private QuarantineRecord failWithPayload(String source, String docId, Path payload) {
        return store.record(FailureEvidence.builder(source, docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint("fp").payload(payload).build());
    }

    private void indexDoc(String source, String docId, String text) {
        index.index(new IndexedDocument(source, docId, "v1", T0, null, "p1", "c1", "e1", 1,
                List.of(new IndexedChunk(0, text, new float[] {1, 0}, 1, 1))));
    }
}
