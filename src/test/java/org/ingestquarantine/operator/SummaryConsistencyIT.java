package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.IndexedChunk;
import org.ingestquarantine.ingest.IndexedDocument;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SummaryChecks;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The summaries the operator's questions read (quarantine_summary, source_summary) equal an aggregate over the
 * records and the index after any mix of the writes that change them: failures (new, repeated, with a new
 * fingerprint or parser version, re-opening a repaired record), drain closings, disposes, erasures, payload
 * expiry and index writes (which close the document's open record), one at a time and from concurrent writers.
 */
class SummaryConsistencyIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");
    private static final List<String> SOURCES = List.of("contracts", "invoices", "scans");
    private static final List<String> FINGERPRINTS = List.of("fp-a", "fp-b", "fp-c", "fp-d");
    private static final List<String> PARSERS = List.of("p1", "p2");
    private static final Map<String, String> OWNERS = Map.of("contracts", "legal-ops", "invoices", "finance");

    @TempDir
    Path temp;

    private MutableClock clock;
    private LocalPayloadStore payloads;
    private QuarantineStore store;
    private DocumentIndex index;
    private Dispositions dispositions;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        payloads = new LocalPayloadStore(temp.resolve("objects"));
        store = new QuarantineStore(dataSource(), payloads, s -> Optional.ofNullable(OWNERS.get(s)), clock);
        index = new DocumentIndex(dataSource(), 2);
        dispositions = new Dispositions(dataSource(), store, payloads, clock);
    }

    @Test
    void shouldEqualAnAggregateOverTheRecordsAfterAMixOfWrites() throws Exception {
        Random random = new Random(8);
        for (int step = 0; step < 400; step++) {
            String source = SOURCES.get(random.nextInt(SOURCES.size()));
            String docId = "doc-" + random.nextInt(30);
            clock.advance(Duration.ofMinutes(random.nextInt(600)));
            int op = random.nextInt(100);
            if (op < 50) {
                fail(source, docId, FINGERPRINTS.get(random.nextInt(FINGERPRINTS.size())),
                        PARSERS.get(random.nextInt(PARSERS.size())), random.nextBoolean());
            } else if (op < 62) {
                closeLikeADrain(source, docId, random.nextBoolean() ? Disposition.REPAIRED_PARSER_FIXED
                        : random.nextBoolean() ? Disposition.REPAIRED_CONTENT_CHANGED : Disposition.DELETED_AT_SOURCE);
            } else if (op < 80) {
                indexDoc(source, docId);
            } else if (op < 84) {
                try {
                    dispositions.disposeUnindexable(FINGERPRINTS.get(random.nextInt(FINGERPRINTS.size())),
                            random.nextBoolean() ? null : PARSERS.get(random.nextInt(PARSERS.size())), source,
                            "vendor_format", "team-docs");
                } catch (BadOperatorInputException noOpenRecord) {
                    // nothing to dispose in this source: nothing changed
                }
            } else if (op < 88) {
                try {
                    dispositions.erase(source, docId);
                } catch (BadOperatorInputException nothingToErase) {
                    // neither a record nor index rows
                }
            } else if (op < 90) {
                dispositions.expirePayloads(Duration.ofDays(3));
            } else {
                fail(source, docId, "fp-a", "p1", false);
            }
            if (step % 50 == 49) {
                assertSummariesMatchTheRecords("after step " + step);
            }
        }
        assertSummariesMatchTheRecords("at the end");
        assertThat(count("SELECT count(*) FROM quarantine WHERE disposition = 'erased'")).as("the mix erased some")
                .isPositive();
        assertThat(count("SELECT count(*) FROM quarantine WHERE disposition = 'unindexable'")).isPositive();
        assertThat(count("SELECT open_indexed + unindexable_indexed FROM source_summary LIMIT 1")).isNotNull();
    }

    @Test
    void shouldKeepLastSeenWhenAnEarlierDeliveryCommitsAfterALaterOne() throws Exception {
        // two deliveries of one document racing: the one whose clock read later commits first
        clock.advance(Duration.ofMinutes(10));
        fail("contracts", "doc-1", "fp-a", "p1", false);
        clock.advance(Duration.ofMinutes(-5));
        fail("contracts", "doc-1", "fp-a", "p1", false);

        assertThat(store.find("contracts", "doc-1").orElseThrow().lastSeenAt())
                .as("last seen moves forward only").isEqualTo(T0.plus(Duration.ofMinutes(10)));
        assertSummariesMatchTheRecords("after an earlier delivery committed last");
    }

    @Test
    void shouldStayConsistentUnderConcurrentWritersMovingRecordsBetweenCohorts() throws Exception {
        QuarantineStore systemClock = storeOnTheSystemClock();
        fourWriters(0, random -> {
            for (int i = 0; i < 150; i++) {
                String docId = "doc-" + random.nextInt(20);
                if (random.nextInt(5) == 0) {
                    try {
                        systemClock.close("contracts", docId, Disposition.REPAIRED_PARSER_FIXED, null, null);
                    } catch (java.util.NoSuchElementException none) {
                        // not failed yet
                    }
                } else {
                    systemClock.record(FailureEvidence.builder("contracts", docId)
                            .errorClass(ErrorClass.AMBIGUOUS_PARSE)
                            .errorFingerprint(FINGERPRINTS.get(random.nextInt(2)))
                            .parserVersion(PARSERS.get(random.nextInt(2))).build());
                }
            }
        });
        assertSummariesMatchTheRecords("after concurrent writers");
    }

    @Test
    void shouldStayConsistentUnderConcurrentFailuresAndIndexWritesThatCloseRecords() throws Exception {
        QuarantineStore systemClock = storeOnTheSystemClock();
        ListAppender<ILoggingEvent> closes = new ListAppender<>();   // DocumentIndex logs each record it closes
        Logger indexLog = (Logger) LoggerFactory.getLogger(DocumentIndex.class);
        closes.start();
        indexLog.addAppender(closes);
        try {
            fourWriters(100, random -> {
                for (int i = 0; i < 150; i++) {
                    String docId = "doc-" + random.nextInt(8);
                    if (random.nextBoolean()) {
                        systemClock.record(FailureEvidence.builder("contracts", docId)
                                .errorClass(ErrorClass.AMBIGUOUS_PARSE).sourceVersion("v" + random.nextInt(3))
                                .errorFingerprint(FINGERPRINTS.get(random.nextInt(2))).parserVersion("p1").build());
                    } else {
                        // a later delivery indexes the document: closes its open record, if any, in the same transaction
                        index.index(new IndexedDocument("contracts", docId, "v" + random.nextInt(3), null, null, "p1",
                                "c1", "e" + random.nextInt(2), 1,
                                List.of(new IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))));
                    }
                }
            });
        } finally {
            indexLog.detachAppender(closes);
        }
        assertSummariesMatchTheRecords("after concurrent failures and closing index writes");
        // the last write of a document may have re-opened its record, so count the closes, not the closed records
        assertThat(closes.list.stream().filter(e -> e.getFormattedMessage().contains(" closed as ")).count())
                .as("records the concurrent index writes closed").isPositive();
    }

    /** @return a store like the test's, on the system clock instead of the test's MutableClock */
    private QuarantineStore storeOnTheSystemClock() {
        return new QuarantineStore(dataSource(), payloads, s -> Optional.ofNullable(OWNERS.get(s)), Clock.systemUTC());
    }

    /** What one concurrent writer does, with its own seeded random. */
    private interface Writer {
        void write(Random random) throws Exception;
    }

    /** Runs {@code writer} on 4 threads at once (seeds {@code seed} to {@code seed + 3}) and waits for all of them. */
    private static void fourWriters(int seed, Writer writer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                Random random = new Random(seed + w);
                done.add(pool.submit(() -> {
                    writer.write(random);
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    private void assertSummariesMatchTheRecords(String when) throws Exception {
        assertThat(rows("SELECT count(*) FROM quarantine_summary")).as("records " + when).isNotEqualTo(List.of(List.of(0L)));
        SummaryChecks.assertSummariesMatchTheRecords(dataSource(), when);
    }

    private void fail(String source, String docId, String fingerprint, String parser, boolean withPayload)
            throws Exception {
        FailureEvidence.Builder e = FailureEvidence.builder(source, docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorFingerprint(fingerprint).parserVersion(parser);
        if (withPayload) {
            e.payload(Files.write(temp.resolve("payload.bin"), (source + docId).getBytes(StandardCharsets.UTF_8)));
        }
        store.record(e.build());
    }

    private void closeLikeADrain(String source, String docId, Disposition outcome) {
        Optional<QuarantineRecord> record = store.find(source, docId);
        if (record.isPresent() && record.get().disposition() == Disposition.OPEN) {
            store.close(source, docId, outcome, outcome == Disposition.DELETED_AT_SOURCE ? "not_found" : null,
                    record.get().owner());
        }
    }

    private void indexDoc(String source, String docId) {
        index.index(new IndexedDocument(source, docId, "v" + clock.instant().toEpochMilli(), T0, null, "p1", "c1",
                "e1", 1, List.of(new IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))));
    }

    private Long count(String sql) throws Exception {
        List<List<Object>> rows = rows(sql);
        return rows.isEmpty() ? null : ((Number) rows.get(0).get(0)).longValue();
    }

    private static List<List<Object>> rows(String sql) throws Exception {
        return SummaryChecks.rows(dataSource(), sql);
    }
}
