package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the read model counts open records, cohorts and coverage per source, including sources without quarantine rows. */
class QuarantineQueriesIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    @TempDir
    Path temp;

    private MutableClock clock;
    private QuarantineStore store;
    private DocumentIndex index;
    private QuarantineQueries queries;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        store = new QuarantineStore(dataSource(), new LocalPayloadStore(temp), clock);
        index = new DocumentIndex(dataSource(), 2);
        queries = new QuarantineQueries(dataSource());
    }

    @Test
    void shouldReportCoverageForSourcesWithAndWithoutQuarantineRows() {
        indexDoc("clean", "a");
        indexDoc("clean", "b");
        indexDoc("mixed", "a");
        indexDoc("mixed", "b");
        indexDoc("mixed", "c");
        fail("mixed", "x", ErrorClass.AMBIGUOUS_PARSE, "fp1", "p1");
        clock.advance(Duration.ofHours(1));
        fail("mixed", "y", ErrorClass.PERMANENT_INPUT, "fp2", "p1");
        fail("mixed", "z", ErrorClass.AMBIGUOUS_PARSE, "fp1", "p1");
        store.close("mixed", "z", Disposition.UNINDEXABLE, "vendor_format", "team");
        fail("broken", "q", ErrorClass.UNCLASSIFIED, "fp3", "p1");
        // coverage needs each source's total (a stale one, 1 for mixed, counts the documents seen)
        org.ingestquarantine.ingest.SourceTotals totals = new org.ingestquarantine.ingest.SourceTotals(dataSource(), clock);
        totals.record("broken", 1, "test", null);
        totals.record("clean", 2, "test", null);
        totals.record("mixed", 1, "test", null);

        List<SourceCoverage> coverage = queries.coverage(List.of("clean", "configured-but-empty"));

        assertThat(coverage).extracting(SourceCoverage::source)
                .containsExactly("broken", "clean", "configured-but-empty", "mixed");
        assertThat(coverage.get(0).coverage()).isEqualTo(0.0);
        assertThat(coverage.get(1)).extracting(SourceCoverage::indexed, SourceCoverage::openQuarantined,
                SourceCoverage::documents, SourceCoverage::coverage, SourceCoverage::oldestOpenAt)
                .containsExactly(2L, 0L, 2L, 1.0, null);
        assertThat(coverage.get(2).coverage()).isNull();
        SourceCoverage mixed = coverage.get(3);
        assertThat(mixed.indexed()).isEqualTo(3);
        assertThat(mixed.openQuarantined()).isEqualTo(2);
        assertThat(mixed.unindexable()).isEqualTo(1);
        assertThat(mixed.documents()).as("more seen than the total says").isEqualTo(6);
        assertThat(mixed.coverage()).isCloseTo(0.5, within(1e-9));
        assertThat(mixed.oldestOpenAt()).isEqualTo(T0);
    }

    @Test
    void shouldNotCountAnOpenRecordWhoseDocumentIsNowSearchable() {
        // an earlier revision stays searchable while a later delivery's failure is open (indexing AFTER a failure
        // closes the record in the same transaction, see DocumentIndex)
        indexDoc("s", "a");
        fail("s", "a", ErrorClass.TRANSIENT, "fp", "p1");
        new org.ingestquarantine.ingest.SourceTotals(dataSource(), clock).record("s", 1, "test", null);

        assertThat(queries.coverage(List.of())).singleElement().extracting(SourceCoverage::indexed,
                SourceCoverage::openQuarantined, SourceCoverage::coverage, SourceCoverage::oldestOpenAt)
                .containsExactly(1L, 0L, 1.0, T0);
    }

    @Test
    void shouldCountOpenRecordsPerClassAndReason() {
        fail("s", "a", ErrorClass.PERMANENT_INPUT, "fp1", "p1", "not_pdf");
        fail("s", "b", ErrorClass.PERMANENT_INPUT, "fp1", "p1", "not_pdf");
        fail("s", "c", ErrorClass.PERMANENT_INPUT, "fp2", "p1", "encrypted");
        fail("s", "d", ErrorClass.AMBIGUOUS_PARSE, "fp3", "p1", null);
        fail("s", "e", ErrorClass.AMBIGUOUS_PARSE, "fp3", "p1", null);
        store.close("s", "e", Disposition.DELETED_AT_SOURCE, null, null);
        fail("other", "a", ErrorClass.PERMANENT_INPUT, "fp1", "p1", "not_pdf");

        assertThat(queries.openCounts("s")).containsExactly(
                new OpenCount(ErrorClass.PERMANENT_INPUT, "not_pdf", 2),
                new OpenCount(ErrorClass.AMBIGUOUS_PARSE, null, 1),
                new OpenCount(ErrorClass.PERMANENT_INPUT, "encrypted", 1));
    }

    @Test
    void shouldListEveryFingerprintEverSeenForASource() {
        fail("s", "a", ErrorClass.TRANSIENT, "fp-old", "p1");
        fail("s", "a", ErrorClass.AMBIGUOUS_PARSE, "fp-new", "p1");
        fail("s", "b", ErrorClass.AMBIGUOUS_PARSE, "fp-new", "p1");
        fail("other", "c", ErrorClass.AMBIGUOUS_PARSE, "fp-other", "p1");

        assertThat(queries.fingerprints("s")).containsExactly("fp-new", "fp-old");
    }

    @Test
    void shouldCountRecordsAgainstDistinctDocumentsPerSource() {
        fail("s", "a", ErrorClass.TRANSIENT, "fp", "p1");
        clock.advance(Duration.ofMinutes(1));
        fail("s", "a", ErrorClass.TRANSIENT, "fp", "p1");
        clock.advance(Duration.ofMinutes(1));
        fail("s", "b", ErrorClass.TRANSIENT, "fp", "p1");

        assertThat(queries.stats()).containsExactly(
                new SourceStats("s", 3, 2, 2, T0, T0.plus(Duration.ofMinutes(2))));
    }

    @Test
    void shouldGroupOpenRecordsIntoCohortsWithoutALimit() {
        for (int i = 0; i < 120; i++) {
            fail("s", "doc-" + i, ErrorClass.AMBIGUOUS_PARSE, "fp" + (i % 60), i % 2 == 0 ? "p1" : "p2");
        }
        clock.advance(Duration.ofDays(1));
        fail("s", "late", ErrorClass.RESOURCE_FATAL, "fp-big", "p1");
        fail("s", "late2", ErrorClass.RESOURCE_FATAL, "fp-big", "p1");
        fail("s", "late3", ErrorClass.RESOURCE_FATAL, "fp-big", "p1");

        List<Cohort> cohorts = queries.cohorts();

        assertThat(cohorts).hasSize(61);
        assertThat(cohorts.get(0)).isEqualTo(new Cohort("p1", ErrorClass.RESOURCE_FATAL, "fp-big", 3,
                T0.plus(Duration.ofDays(1)), T0.plus(Duration.ofDays(1))));
        assertThat(cohorts).filteredOn(c -> c.errorFingerprint().equals("fp0"))
                .singleElement().extracting(Cohort::parserVersion, Cohort::documents, Cohort::since)
                .containsExactly("p1", 2L, T0);
    }

    @Test
    void shouldListOverdueOpenRecordsOldestFirst() {
        fail("s", "old", ErrorClass.AMBIGUOUS_PARSE, "fp", "p1");
        clock.advance(Duration.ofDays(100));
        fail("s", "new", ErrorClass.AMBIGUOUS_PARSE, "fp", "p1");

        assertThat(queries.overdue(clock.instant().minus(Duration.ofDays(90))))
                .extracting(QuarantineRecord::docId).containsExactly("old");
    }

    private void fail(String source, String docId, ErrorClass errorClass, String fingerprint, String parser) {
        fail(source, docId, errorClass, fingerprint, parser, null);
    }

    private void fail(String source, String docId, ErrorClass errorClass, String fingerprint, String parser,
                      String reason) {
        store.record(FailureEvidence.builder(source, docId).errorClass(errorClass).errorFingerprint(fingerprint)
                .parserVersion(parser).reasonCode(reason).build());
    }

    private void indexDoc(String source, String docId) {
        index.index(new IndexedDocument(source, docId, "v1", T0, null, "p1", "c1", "e1", 1,
                List.of(new IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))));
    }
}
