package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.testsupport.CountingSockets;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the evidence record is upserted per document, its history appended once per delivery, and outages throw. */
class QuarantineStoreIT extends PostgresTestBase {

    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    @TempDir
    Path temp;

    private MutableClock clock;
    private LocalPayloadStore payloads;
    private QuarantineStore store;

    @BeforeEach
    void setUp() {
        clock = new MutableClock(T0);
        payloads = new LocalPayloadStore(temp.resolve("objects"));
        store = new QuarantineStore(dataSource(), payloads, clock);
    }

    @Test
    void shouldWriteEveryEvidenceFieldOnTheFirstFailure() throws IOException {
        Path pdf = Files.write(temp.resolve("a.pdf"), "%PDF-1.7 broken".getBytes(StandardCharsets.US_ASCII));
        IllegalStateException failure = new IllegalStateException("missing /Root");

        QuarantineRecord r = store.record(FailureEvidence.builder("folder", "a.pdf")
                .sourceUri("file:///srv/docs/a.pdf").sourceVersion("etag-1").sourceUpdatedAt(T0.minusSeconds(60)).cursorAtArrival("c-7").ingestSeq(7L)
                .connectorVersion("folder/1").parserVersion("pdfbox-3.0.6/1").chunkerVersion("para/1")
                .embedderVersion("minilm/1").contentType("application/pdf").stage("parse").payload(pdf)
                .errorClass(ErrorClass.AMBIGUOUS_PARSE).failure(failure).reasonCode("syntax")
                .deliveryKey("msg-1").deliveryCount(1).build());

        assertThat(r.dlqId()).hasSize(26);
        assertThat(r.source()).isEqualTo("folder");
        assertThat(r.docId()).isEqualTo("a.pdf");
        assertThat(r.sourceUri()).isEqualTo("file:///srv/docs/a.pdf");
        assertThat(r.sourceVersion()).isEqualTo("etag-1");
        assertThat(r.sourceUpdatedAt()).isEqualTo(T0.minusSeconds(60));
        assertThat(r.cursorAtArrival()).isEqualTo("c-7");
        assertThat(r.ingestSeq()).isEqualTo(7L);
        assertThat(r.connectorVersion()).isEqualTo("folder/1");
        assertThat(r.parserVersion()).isEqualTo("pdfbox-3.0.6/1");
        assertThat(r.chunkerVersion()).isEqualTo("para/1");
        assertThat(r.embedderVersion()).isEqualTo("minilm/1");
        assertThat(r.contentType()).isEqualTo("application/pdf");
        assertThat(r.stage()).isEqualTo("parse");
        assertThat(r.payloadBytes()).isEqualTo(15L);
        assertThat(payloads.get(r.payloadUri())).isEqualTo(Files.readAllBytes(pdf));
        assertThat(r.payloadSha256()).hasSize(64);
        assertThat(r.errorClass()).isEqualTo(ErrorClass.AMBIGUOUS_PARSE);
        assertThat(r.errorType()).isEqualTo("java.lang.IllegalStateException");
        assertThat(r.errorMessage()).isEqualTo("missing /Root");
        assertThat(r.errorFingerprint()).isEqualTo(ErrorFingerprint.of(failure));
        assertThat(new String(payloads.get(r.stackTraceUri()), StandardCharsets.UTF_8))
                .contains("IllegalStateException", "shouldWriteEveryEvidenceFieldOnTheFirstFailure");
        assertThat(r.attempts()).isEqualTo(1);
        assertThat(r.firstSeenAt()).isEqualTo(T0);
        assertThat(r.lastSeenAt()).isEqualTo(T0);
        assertThat(r.disposition()).isEqualTo(Disposition.OPEN);
        assertThat(r.reasonCode()).isEqualTo("syntax");
        assertThat(r.owner()).isNull();
        assertThat(r.closedAt()).isNull();
        assertThat(store.find("folder", "a.pdf")).get().extracting(QuarantineRecord::dlqId).isEqualTo(r.dlqId());
        assertThat(store.attempts(r.dlqId())).singleElement().satisfies(a -> {
            assertThat(a.attemptNo()).isEqualTo(1);
            assertThat(a.deliveryKey()).isEqualTo("msg-1");
            assertThat(a.sourceUri()).isEqualTo("file:///srv/docs/a.pdf");
            assertThat(a.payloadSha256()).isEqualTo(r.payloadSha256());
        });
    }

    @Test
    void shouldUpsertARepeatFailureIntoTheSameRowAndAppendItsHistory() throws Exception {
        QuarantineRecord first = store.record(evidence("b.pdf", ErrorClass.TRANSIENT, "m-1", 1).stage("fetch").build());
        clock.advance(Duration.ofMinutes(5));
        QuarantineRecord second = store.record(evidence("b.pdf", ErrorClass.AMBIGUOUS_PARSE, "m-1", 2)
                .stage("parse").errorType("java.io.IOException").errorFingerprint("fp-2").reasonCode("xref").build());

        assertThat(second.dlqId()).isEqualTo(first.dlqId());
        assertThat(second.attempts()).isEqualTo(2);
        assertThat(second.firstSeenAt()).isEqualTo(T0);
        assertThat(second.lastSeenAt()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
        assertThat(second.errorClass()).isEqualTo(ErrorClass.AMBIGUOUS_PARSE);
        assertThat(second.stage()).isEqualTo("parse");
        assertThat(second.errorFingerprint()).isEqualTo("fp-2");
        assertThat(second.reasonCode()).isEqualTo("xref");
        assertThat(store.attempts(first.dlqId()))
                .extracting(QuarantineAttempt::attemptNo, QuarantineAttempt::errorClass, QuarantineAttempt::stage)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, ErrorClass.TRANSIENT, "fetch"),
                        org.assertj.core.groups.Tuple.tuple(2, ErrorClass.AMBIGUOUS_PARSE, "parse"));
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine WHERE doc_id = 'b.pdf'")).isEqualTo(1);
    }

    @Test
    void shouldWriteARecordInOneRoundTripAndReadItBackInAnother() throws Exception {
        try (Database counted = Database.open(CountingSockets.jdbcUrl(postgres.jdbcUrl()), postgres.user(),
                postgres.password())) {
            QuarantineStore countedStore = new QuarantineStore(counted.dataSource(), payloads, clock);
            // past the driver's prepare threshold (5 executions): a statement bound with untyped nulls is then
            // described, and from there on the driver sends a Sync and waits before every execution
            for (int i = 0; i < 20; i++) {
                countedStore.record(evidence("rt-" + i, ErrorClass.AMBIGUOUS_PARSE, "rt-" + i, 1).build());
            }
            long before = CountingSockets.sendsBy(Thread.currentThread());
            for (int i = 20; i < 30; i++) {
                // nulls of every declared type: no payload (text, char, bigint), no source time (timestamptz)
                countedStore.record(evidence("rt-" + i, ErrorClass.AMBIGUOUS_PARSE, "rt-" + i, 1).ingestSeq(null)
                        .sourceUpdatedAt(i % 2 == 0 ? null : T0).build());
            }
            assertThat((CountingSockets.sendsBy(Thread.currentThread()) - before) / 10.0)
                    .as("round trips per record: the record's statement (its commit) and the read of the row")
                    .isEqualTo(2.0);
        }
    }

    @Test
    void shouldKeepTheLastKnownPayloadWhenARepeatFailureFetchedNothing() throws IOException {
        Path pdf = Files.write(temp.resolve("c.pdf"), new byte[] {1, 2, 3});
        QuarantineRecord first = store.record(evidence("c.pdf", ErrorClass.AMBIGUOUS_PARSE, null, 0).payload(pdf)
                .sourceVersion("v1").build());
        QuarantineRecord second = store.record(evidence("c.pdf", ErrorClass.TRANSIENT, null, 0).build());

        assertThat(second.payloadUri()).isEqualTo(first.payloadUri());
        assertThat(second.payloadSha256()).isEqualTo(first.payloadSha256());
        assertThat(second.sourceVersion()).isEqualTo("v1");
        assertThat(second.attempts()).isEqualTo(2);
    }

    /**
     * The record and each attempt keep the URI the document was fetched from; a repeat failure that names none (its
     * URI refused by the trust check) keeps the last one on the record but not on its own attempt, and a later
     * URI (the producer moved the document) replaces it.
     */
    @Test
    void shouldKeepTheSourceUriOnTheRecordAndEachAttempt() {
        String first = "http://docs.example/a/d.pdf";
        String moved = "https://docs.example/b/d.pdf";
        store.record(evidence("d.pdf", ErrorClass.AMBIGUOUS_PARSE, "u-1", 1).sourceUri(first).build());
        QuarantineRecord refused = store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "u-2", 1).build());
        QuarantineRecord later = store.record(evidence("d.pdf", ErrorClass.AMBIGUOUS_PARSE, "u-3", 1)
                .sourceUri(moved).build());

        assertThat(refused.sourceUri()).as("the last known URI stays").isEqualTo(first);
        assertThat(later.sourceUri()).as("the latest admitted URI").isEqualTo(moved);
        assertThat(store.attempts(later.dlqId())).extracting(QuarantineAttempt::sourceUri)
                .containsExactly(first, null, moved);
    }

    @Test
    void shouldKeepTheBytesOfAnUnreadableMessageAsItsPayload() throws IOException {
        byte[] body = {(byte) 0xff, 0x00, '{', (byte) 0xc3};
        QuarantineRecord r = store.record(evidence("rabbitmq:m-1", ErrorClass.PERMANENT_INPUT, "rabbitmq:m-1", 1)
                .messageBody(body).build());
        QuarantineRecord empty = store.record(evidence("rabbitmq:m-2", ErrorClass.PERMANENT_INPUT, "rabbitmq:m-2", 1)
                .messageBody(new byte[0]).build());

        assertThat(payloads.get(r.payloadUri())).isEqualTo(body);
        assertThat(r.payloadBytes()).isEqualTo(4L);
        assertThat(empty.payloadBytes()).isZero();
        assertThat(empty.payloadSha256()).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void shouldNotAddASecondAttemptForTheSameDelivery() throws Exception {
        store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "sqs-msg-9", 1).build());
        clock.advance(Duration.ofSeconds(30));
        QuarantineRecord again = store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "sqs-msg-9", 1).build());

        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.lastSeenAt()).isEqualTo(T0);
        assertThat(store.attempts(again.dlqId())).hasSize(1);

        QuarantineRecord nextDelivery = store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "sqs-msg-9", 2).build());
        assertThat(nextDelivery.attempts()).isEqualTo(2);
    }

    @Test
    void shouldSerialiseConcurrentFailuresOfOneDocument() throws Exception {
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            List<Future<QuarantineRecord>> futures = new ArrayList<>();
            for (int i = 1; i <= writers; i++) {
                int n = i;
                futures.add(pool.submit(() -> store.record(evidence("e.pdf", ErrorClass.TRANSIENT, "k-" + n, 1).build())));
            }
            for (Future<QuarantineRecord> f : futures) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        QuarantineRecord r = store.find("folder", "e.pdf").orElseThrow();
        assertThat(r.attempts()).isEqualTo(writers);
        assertThat(store.attempts(r.dlqId())).extracting(QuarantineAttempt::attemptNo)
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine")).isEqualTo(1);
    }

    @Test
    void shouldReopenARepairedRecordButKeepAnUnindexableOneClosed() {
        store.record(evidence("f.pdf", ErrorClass.AMBIGUOUS_PARSE, null, 0).build());
        QuarantineRecord closed = store.close("folder", "f.pdf", Disposition.REPAIRED_PARSER_FIXED, null, null);
        assertThat(closed.disposition()).isEqualTo(Disposition.REPAIRED_PARSER_FIXED);
        assertThat(closed.closedAt()).isEqualTo(T0);

        QuarantineRecord reopened = store.record(evidence("f.pdf", ErrorClass.AMBIGUOUS_PARSE, null, 0).build());
        assertThat(reopened.disposition()).isEqualTo(Disposition.OPEN);
        assertThat(reopened.closedAt()).isNull();
        assertThat(reopened.attempts()).isEqualTo(2);

        store.close("folder", "f.pdf", Disposition.UNINDEXABLE, "vendor_format", "team-docs");
        QuarantineRecord stillClosed = store.record(evidence("f.pdf", ErrorClass.AMBIGUOUS_PARSE, null, 0)
                .reasonCode("xref").build());
        assertThat(stillClosed.disposition()).isEqualTo(Disposition.UNINDEXABLE);
        assertThat(stillClosed.reasonCode()).isEqualTo("vendor_format");
        assertThat(stillClosed.owner()).isEqualTo("team-docs");
        assertThat(stillClosed.attempts()).isEqualTo(3);
    }

    @Test
    void shouldEraseThePayloadTraceAndMessageButKeepTheTombstone() throws IOException {
        Path pdf = Files.write(temp.resolve("g.pdf"), "secret bytes".getBytes(StandardCharsets.UTF_8));
        QuarantineRecord r = store.record(evidence("g.pdf", ErrorClass.PERMANENT_INPUT, null, 0).payload(pdf)
                .failure(new IllegalArgumentException("quotes secret text")).build());

        QuarantineRecord erased = store.close("folder", "g.pdf", Disposition.ERASED, "gdpr_request", "privacy");

        assertThat(payloads.exists(r.payloadUri())).isFalse();
        assertThat(payloads.exists(r.stackTraceUri())).isFalse();
        assertThat(erased.payloadUri()).isNull();
        assertThat(erased.stackTraceUri()).isNull();
        assertThat(erased.errorMessage()).isNull();
        assertThat(erased.dlqId()).isEqualTo(r.dlqId());
        assertThat(erased.errorFingerprint()).isEqualTo(r.errorFingerprint());
    }

    @Test
    void shouldRefuseToCloseWithOpenOrAnUnknownDocument() {
        assertThatThrownBy(() -> store.close("folder", "x", Disposition.OPEN, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.close("folder", "nope", Disposition.UNINDEXABLE, "r", "o"))
                .isInstanceOf(java.util.NoSuchElementException.class);
    }

    @Test
    void shouldThrowWhileTheDatabaseIsDownAndSucceedOnRetryAfterRestart() throws Exception {
        FailureEvidence evidence = evidence("h.pdf", ErrorClass.RESOURCE_FATAL, "m-h", 3).build();
        postgres.stop();
        try {
            assertThatThrownBy(() -> store.record(evidence))
                    .isInstanceOf(QuarantineWriteException.class)
                    .hasMessageContaining("folder/h.pdf")
                    .hasMessageContaining("do not acknowledge the message");
        } finally {
            postgres.start();
        }
        QuarantineRecord r = store.record(evidence);
        assertThat(r.attempts()).as("its third delivery").isEqualTo(3);
        assertThat(r.quarantineWrites()).isEqualTo(1);
        assertThat(store.attempts(r.dlqId())).hasSize(1);
    }

    /**
     * {@code attempts} counts deliveries as the delivery count knows them (a message quarantined on its third
     * delivery is 3; its redelivery after a lost ack adds only the deliveries not counted yet; a new message of the
     * same document adds its own), {@code quarantine_writes} the failures recorded; the record keeps the FIRST
     * arrival's cursor and ingest_seq.
     */
    @Test
    void shouldCountDeliveriesAndKeepTheFirstArrival() {
        QuarantineRecord first = store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "m-1", 3)
                .cursorAtArrival("cursor-1").ingestSeq(10L).build());
        assertThat(first.attempts()).isEqualTo(3);
        assertThat(first.quarantineWrites()).isEqualTo(1);
        QuarantineRecord lostAck = store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "m-1", 4)
                .cursorAtArrival("cursor-1").ingestSeq(10L).build());
        assertThat(lostAck.attempts()).as("one more delivery of the same message").isEqualTo(4);
        QuarantineRecord resync = store.record(evidence("d.pdf", ErrorClass.PERMANENT_INPUT, "m-2", 2)
                .cursorAtArrival("cursor-9").ingestSeq(90L).build());
        assertThat(resync.attempts()).as("a new message's two deliveries").isEqualTo(6);
        assertThat(resync.quarantineWrites()).isEqualTo(3);
        assertThat(store.attempts(resync.dlqId())).extracting(QuarantineAttempt::attemptNo).containsExactly(1, 2, 3);
        assertThat(resync.cursorAtArrival()).as("the first arrival's").isEqualTo("cursor-1");
        assertThat(resync.ingestSeq()).isEqualTo(10L);
    }

    private static FailureEvidence.Builder evidence(String docId, ErrorClass errorClass, String deliveryKey, int count) {
        return FailureEvidence.builder("folder", docId).errorClass(errorClass).deliveryKey(deliveryKey)
                .deliveryCount(count);
    }

}
