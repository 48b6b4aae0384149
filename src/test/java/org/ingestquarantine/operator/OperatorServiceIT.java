package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the operator's questions (stats, cohorts, coverage, show, overdue) answer from the real tables, completely. */
class OperatorServiceIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
    private static final String OLD_PARSER = "pdfbox-2.0.0+iq-parse-0";

    @TempDir
    Path temp;

    private MutableClock clock;
    private LocalPayloadStore payloads;
    private QuarantineStore store;
    private DocumentIndex index;
    private SourceTotals totals;
    private OperatorService service;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        payloads = new LocalPayloadStore(temp.resolve("objects"));
        Map<String, String> owners = Map.of("contracts", "legal-ops", "invoices", "finance");
        store = new QuarantineStore(dataSource(), payloads, s -> Optional.ofNullable(owners.get(s)), clock);
        index = new DocumentIndex(dataSource(), 2);
        totals = new SourceTotals(dataSource(), Clock.systemUTC());
        service = new OperatorService(dataSource(), store, payloads, clock);
    }

    @Test
    void shouldCountRecordsAgainstDocumentsPerSourceAndDisposition() {
        fail("contracts", "a", ErrorClass.TRANSIENT, "fp1", ParserVersion.CURRENT);
        clock.advance(Duration.ofMinutes(1));
        fail("contracts", "a", ErrorClass.TRANSIENT, "fp1", ParserVersion.CURRENT);
        fail("contracts", "b", ErrorClass.AMBIGUOUS_PARSE, "fp2", ParserVersion.CURRENT);
        store.close("contracts", "b", Disposition.UNINDEXABLE, "vendor_format", "legal-ops");
        clock.advance(Duration.ofMinutes(1));
        fail("invoices", "x", ErrorClass.PERMANENT_INPUT, "fp3", ParserVersion.CURRENT);

        StatsReport stats = service.stats(null);

        assertThat(stats.sources()).extracting(SourceQuarantineStats::source).containsExactly("contracts", "invoices");
        SourceQuarantineStats contracts = stats.sources().get(0);
        assertThat(contracts.records()).isEqualTo(3);
        assertThat(contracts.documents()).isEqualTo(2);
        assertThat(contracts.open()).isEqualTo(1);
        assertThat(contracts.documentsByDisposition()).containsEntry("unindexable", 1L).containsEntry("erased", 0L);
        assertThat(contracts.oldestFirstSeen()).isEqualTo(T0);
        assertThat(contracts.newestFirstSeen()).isEqualTo(T0.plus(Duration.ofMinutes(1)));
        assertThat(stats.total().records()).isEqualTo(4);
        assertThat(stats.total().documents()).isEqualTo(3);
        assertThat(stats.total().newestFirstSeen()).isEqualTo(T0.plus(Duration.ofMinutes(2)));
        assertThat(service.stats("invoices").sources()).singleElement()
                .extracting(SourceQuarantineStats::records).isEqualTo(1L);
    }

    @Test
    void shouldListEveryCohortAndMarkThoseOfAnotherParser() {
        for (int i = 0; i < 70; i++) {
            fail("contracts", "doc-" + i, ErrorClass.AMBIGUOUS_PARSE, "fp" + (i % 35),
                    i % 2 == 0 ? ParserVersion.CURRENT : OLD_PARSER);
        }
        fail("contracts", "big-1", ErrorClass.RESOURCE_FATAL, "fp-big", OLD_PARSER, "heap limit hit at page 7");
        fail("contracts", "big-2", ErrorClass.RESOURCE_FATAL, "fp-big", OLD_PARSER, "heap limit hit at page 9");
        fail("contracts", "big-3", ErrorClass.RESOURCE_FATAL, "fp-big", OLD_PARSER, "heap limit hit at page 1");
        fail("contracts", "big-1", ErrorClass.RESOURCE_FATAL, "fp-big", OLD_PARSER, "heap limit hit at page 7");

        CohortReport all = service.cohorts(null, null, null);

        assertThat(all.totalCohorts()).isEqualTo(71);
        assertThat(all.cut()).isZero();
        assertThat(all.cohorts()).hasSize(71);
        CohortRow big = all.cohorts().get(0);
        assertThat(big.errorFingerprint()).isEqualTo("fp-big");
        assertThat(big.documents()).isEqualTo(3);
        assertThat(big.attempts()).isEqualTo(4);
        assertThat(big.staleParser()).isTrue();
        assertThat(big.exampleErrorType()).isEqualTo("java.lang.OutOfMemoryError");
        assertThat(big.exampleMessage()).startsWith("heap limit hit at page");
        assertThat(all.cohorts()).filteredOn(c -> ParserVersion.CURRENT.equals(c.parserVersion()))
                .hasSize(35).allMatch(c -> !c.staleParser());

        CohortReport limited = service.cohorts(null, null, 10);
        assertThat(limited.cohorts()).hasSize(10);
        assertThat(limited.cut()).isEqualTo(61);
        assertThat(service.cohorts(null, "resource_fatal", null).cohorts()).singleElement()
                .extracting(CohortRow::errorFingerprint).isEqualTo("fp-big");
        assertThatThrownBy(() -> service.cohorts(null, "flaky", null))
                .isInstanceOf(BadOperatorInputException.class).hasMessageContaining("unknown error class 'flaky'");
    }

    /**
     * A source fed by producers: its listed total counts the documents no message brought yet (unseen) against
     * coverage; a stale total below what was seen gives way to every document seen, so coverage stays in [0, 1].
     */
    @Test
    void shouldCountUnseenDocumentsOfAListedTotalAndNeverExceedOne() {
        indexDoc("feed", "a");
        fail("feed", "x", ErrorClass.AMBIGUOUS_PARSE, "fp1", OLD_PARSER);
        totals.record("feed", 5, org.ingestquarantine.ingest.SourceTotals.Obtained.LISTED, "folder-1", null);
        indexDoc("stale", "a");
        indexDoc("stale", "b");
        fail("stale", "x", ErrorClass.AMBIGUOUS_PARSE, "fp1", OLD_PARSER);
        totals.record("stale", 1, org.ingestquarantine.ingest.SourceTotals.Obtained.STATED, "ops", null);

        List<CoverageRow> coverage = service.coverage();

        assertThat(coverage).extracting(CoverageRow::source).containsExactly("feed", "stale");
        assertThat(coverage.get(0)).extracting(CoverageRow::totalBy, CoverageRow::unseen, CoverageRow::coverage)
                .containsExactly("listed", 3L, 0.2);
        assertThat(coverage.get(0).totalCountedAt()).isNotNull();
        assertThat(coverage.get(1)).extracting(CoverageRow::totalBy, CoverageRow::unseen, CoverageRow::coverage)
                .containsExactly("stated", 0L, 2.0 / 3);
        assertThat(org.ingestquarantine.metrics.CoverageRatio.percent(2.0 / 3)).isEqualTo("66.6%");
        assertThat(org.ingestquarantine.metrics.CoverageRatio.percent(75.0 / 139)).isEqualTo("53.9%");
        assertThat(org.ingestquarantine.metrics.CoverageRatio.percent(197.0 / 199)).isEqualTo("98.9%");
        assertThat(org.ingestquarantine.metrics.CoverageRatio.percent(1.0)).isEqualTo("100.0%");
    }

    @Test
    void shouldShowASourceWithoutQuarantineRowsAtFullCoverage() {
        indexDoc("clean", "a");
        indexDoc("clean", "b");
        totals.record("clean", 2, "folder-1", null);
        indexDoc("mixed", "a");
        fail("mixed", "x", ErrorClass.AMBIGUOUS_PARSE, "fp1", OLD_PARSER);
        totals.record("mixed", 2, "folder-1", null);
        totals.record("empty", 0, "folder-1", null);
        fail("web", "y", ErrorClass.PERMANENT_INPUT, "fp2", OLD_PARSER);
        clock.advance(Duration.ofDays(3));

        List<CoverageRow> coverage = service.coverage();

        assertThat(coverage).extracting(CoverageRow::source).containsExactly("clean", "empty", "mixed", "web");
        assertThat(coverage.get(0)).extracting(CoverageRow::total, CoverageRow::totalBy, CoverageRow::indexed,
                CoverageRow::openQuarantined, CoverageRow::unindexable, CoverageRow::erased, CoverageRow::unseen,
                CoverageRow::coverage, CoverageRow::oldestOpenAt).containsExactly(2L, "ingest", 2L, 0L, 0L, 0L, 0L, 1.0, null);
        assertThat(coverage.get(1).coverage()).isNull();
        assertThat(coverage.get(2).coverage()).isCloseTo(0.5, within(1e-9));
        CoverageRow web = coverage.get(3);
        assertThat(web.total()).isNull();
        assertThat(web.coverage()).as("no known total: only the age of the oldest open record").isNull();
        assertThat(web.oldestOpenAge()).isEqualTo(Duration.ofDays(3));
    }

    @Test
    void shouldShowARecordByIdOrNameWithItsAttempts() throws Exception {
        Path pdf = Files.write(temp.resolve("a.pdf"), "%PDF-1.7 broken".getBytes(StandardCharsets.US_ASCII));
        QuarantineRecord first = store.record(FailureEvidence.builder("contracts", "2026/11/lease.pdf")
                .errorClass(ErrorClass.AMBIGUOUS_PARSE).failure(new IllegalStateException("missing /Root"))
                .parserVersion(OLD_PARSER).payload(pdf).build());
        clock.advance(Duration.ofHours(1));
        store.record(FailureEvidence.builder("contracts", "2026/11/lease.pdf").errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .failure(new IllegalStateException("missing /Root")).parserVersion(OLD_PARSER).build());

        RecordDetail byId = service.show(first.dlqId());
        RecordDetail byName = service.show("contracts/2026/11/lease.pdf");

        assertThat(byName).isEqualTo(byId);
        assertThat(byId.record().docId()).isEqualTo("2026/11/lease.pdf");
        assertThat(byId.record().attempts()).isEqualTo(2);
        assertThat(byId.attempts()).extracting(a -> a.attemptNo()).containsExactly(1, 2);
        assertThat(byId.payloadStored()).isTrue();
        assertThat(byId.stackTraceStored()).isTrue();
        assertThat(service.show(first.dlqId().toLowerCase()).record().dlqId()).isEqualTo(first.dlqId());
    }

    @Test
    void shouldRefuseUnknownOrMalformedRecordNames() {
        fail("contracts", "a", ErrorClass.TRANSIENT, "fp1", OLD_PARSER);

        assertThatThrownBy(() -> service.show("01ARZ3NDEKTSV4RRFFQ69G5FAV"))
                .isInstanceOf(BadOperatorInputException.class)
                .hasMessage("no quarantine record 01ARZ3NDEKTSV4RRFFQ69G5FAV; list records with 'cohorts' or 'overdue'");
        assertThatThrownBy(() -> service.show("contracts/b")).isInstanceOf(BadOperatorInputException.class);
        assertThatThrownBy(() -> service.show("no-slash")).isInstanceOf(BadOperatorInputException.class)
                .hasMessageContaining("give a dlq_id (26 characters) or source/doc_id");
    }

    @Test
    void shouldGroupOverdueRecordsByTheOwnerWrittenAtCreation() throws Exception {
        fail("contracts", "old-1", ErrorClass.AMBIGUOUS_PARSE, "fp1", OLD_PARSER);
        fail("contracts", "old-2", ErrorClass.AMBIGUOUS_PARSE, "fp1", OLD_PARSER);
        fail("invoices", "old-3", ErrorClass.PERMANENT_INPUT, "fp2", OLD_PARSER);
        fail("misc", "old-4", ErrorClass.PERMANENT_INPUT, "fp2", OLD_PARSER);
        fail("contracts", "closed", ErrorClass.PERMANENT_INPUT, "fp2", OLD_PARSER);
        assertThat(store.find("contracts", "old-1").orElseThrow().owner())
                .as("the write path writes the configured owner when it creates the record").isEqualTo("legal-ops");
        store.close("contracts", "closed", Disposition.UNINDEXABLE, "vendor_format", "someone-else");
        assertThat(store.find("contracts", "closed").orElseThrow().owner())
                .as("closing keeps the owner written at creation").isEqualTo("legal-ops");
        clock.advance(Duration.ofDays(100));
        fail("contracts", "new", ErrorClass.AMBIGUOUS_PARSE, "fp1", OLD_PARSER);

        OverdueReport overdue = service.overdue(Duration.ofDays(90));

        assertThat(overdue.documents()).isEqualTo(4);
        assertThat(overdue.owners()).extracting(OwnerOverdue::owner, OwnerOverdue::documents)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("legal-ops", 2L),
                        org.assertj.core.groups.Tuple.tuple("finance", 1L),
                        org.assertj.core.groups.Tuple.tuple(OperatorService.UNOWNED, 1L));
        assertThat(overdue.owners().get(0).oldestFirstSeen()).isEqualTo(T0);
        assertThat(store.find("contracts", "new").orElseThrow().owner())
                .as("the owner is written on the record").isEqualTo("legal-ops");
        assertThat(store.find("misc", "old-4").orElseThrow().owner()).isNull();
        clock.advance(Duration.ofSeconds(1)); // asked a moment after the newest record was written
        assertThat(service.overdue(Duration.ZERO).documents()).as("0: every open record")
                .isEqualTo(count("SELECT count(*) FROM quarantine WHERE disposition = 'open'"));
        assertThatThrownBy(() -> service.overdue(Duration.ofDays(-1))).isInstanceOf(BadOperatorInputException.class);
    }

    private static long count(String sql) throws Exception {
        try (java.sql.Connection c = dataSource().getConnection(); java.sql.Statement s = c.createStatement();
             java.sql.ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void fail(String source, String docId, ErrorClass errorClass, String fingerprint, String parser) {
        store.record(FailureEvidence.builder(source, docId).errorClass(errorClass).errorFingerprint(fingerprint)
                .parserVersion(parser).build());
    }

    private void fail(String source, String docId, ErrorClass errorClass, String fingerprint, String parser,
                      String message) {
        store.record(FailureEvidence.builder(source, docId).errorClass(errorClass).errorFingerprint(fingerprint)
                .errorType("java.lang.OutOfMemoryError").errorMessage(message).parserVersion(parser).build());
    }

    private void indexDoc(String source, String docId) {
        index.index(new IndexedDocument(source, docId, "v1", T0, null, "p1", "c1", "e1", 1,
                List.of(new IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))));
    }
}
