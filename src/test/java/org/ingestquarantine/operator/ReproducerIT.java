package org.ingestquarantine.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.parse.ParseException;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures reproduce re-parses the stored bytes in the worker pool, checks their sha256 first, and writes nothing. */
class ReproducerIT extends PostgresTestBase {

    private static WorkerPoolParser pool;

    @TempDir
    Path temp;

    private LocalPayloadStore payloads;
    private QuarantineStore store;
    private Reproducer reproducer;

    @BeforeAll
    static void startPool() {
        pool = new WorkerPoolParser(ParseLimits.defaults().withPoolSize(1));
    }

    @AfterAll
    static void stopPool() {
        pool.close();
    }

    @BeforeEach
    void setUp() {
        payloads = new LocalPayloadStore(temp.resolve("objects"));
        store = new QuarantineStore(dataSource(), payloads, Clock.systemUTC());
        OperatorService service = new OperatorService(dataSource(), store, payloads, Clock.systemUTC());
        reproducer = new Reproducer(service, payloads, pool, temp.resolve("work"));
    }

    @Test
    void shouldReportTheSameFailureWhenTheRunningParserFailsAlike() throws Exception {
        Path notPdf = write("not.pdf", "GIF89a, not a PDF at all".getBytes(StandardCharsets.US_ASCII));
        QuarantineRecord r = record("not.pdf", notPdf, failureOf(notPdf));

        Reproduction verdict = reproducer.reproduce(r.dlqId());

        assertThat(verdict.outcome()).isEqualTo(Reproduction.Outcome.SAME_FAILURE);
        assertThat(verdict.summary()).isEqualTo("same failure (fingerprint " + r.errorFingerprint() + ")");
        assertThat(verdict.errorClass()).isEqualTo("permanent_input");
    }

    @Test
    void shouldReportThatTheStoredBytesNowParse() throws Exception {
        Path pdf = write("ok.pdf", TextPdf.of("first page of the lease", "second page"));
        QuarantineRecord r = record("ok.pdf", pdf, new IllegalStateException("an older parser choked"));
        long before = rowCount();

        Reproduction verdict = reproducer.reproduce("contracts/ok.pdf");

        assertThat(verdict.summary()).isEqualTo("now parses (2 pages, " + verdict.chars() + " chars)");
        assertThat(verdict.chars()).isEqualTo("firstpageoftheleasesecondpage".length());
        assertThat(rowCount()).as("nothing written").isEqualTo(before);
        assertThat(store.findById(r.dlqId()).orElseThrow().disposition()).isEqualTo(Disposition.OPEN);
        assertThat(temp.resolve("work")).isEmptyDirectory();
    }

    @Test
    void shouldReportADifferentFailure() throws Exception {
        Path empty = write("empty.pdf", "%PDF-1.7\n".getBytes(StandardCharsets.US_ASCII));
        record("empty.pdf", empty, new IllegalStateException("recorded some other way"));

        Reproduction verdict = reproducer.reproduce("contracts/empty.pdf");

        assertThat(verdict.outcome()).isEqualTo(Reproduction.Outcome.DIFFERENT_FAILURE);
        assertThat(verdict.summary()).startsWith("different failure (fingerprint " + verdict.fingerprint());
        assertThat(verdict.fingerprint()).isNotEqualTo(verdict.recordedFingerprint());
    }

    /** Each case without bytes to parse says what is true of it, never one answer for all. */
    @Test
    void shouldSayWhyThereIsNothingToParse() throws Exception {
        Path pdf = write("missing.pdf", TextPdf.of("soon missing"));
        QuarantineRecord missing = record("missing.pdf", pdf, new IllegalStateException("x"));
        payloads.delete(missing.payloadUri());
        store.record(FailureEvidence.builder("contracts", "never-fetched.pdf").errorClass(ErrorClass.TRANSIENT)
                .errorFingerprint("fp").reasonCode("timeout").stage("fetch").build());
        // what the pipeline records for an empty file: refused from its HEAD (0 bytes), nothing fetched or stored
        QuarantineRecord empty = store.record(FailureEvidence.builder("contracts", "empty.pdf")
                .errorClass(ErrorClass.PERMANENT_INPUT).errorFingerprint("fp-empty").reasonCode("empty")
                .stage("preflight").build());
        assertThat(reproducer.reproduce(missing.dlqId()).outcome()).isEqualTo(Reproduction.Outcome.PAYLOAD_MISSING);
        Path expiring = write("expiring.pdf", TextPdf.of("expires"));
        QuarantineRecord expired = record("expiring.pdf", expiring, new IllegalStateException("y"));
        Path erasing = write("erasing.pdf", TextPdf.of("erased"));
        QuarantineRecord erased = record("erasing.pdf", erasing, new IllegalStateException("z"));
        Dispositions dispositions = new Dispositions(dataSource(), store, payloads, Clock.offset(Clock.systemUTC(),
                java.time.Duration.ofDays(400)));
        dispositions.expirePayloads(java.time.Duration.ofDays(90));
        store.close("contracts", "erasing.pdf", Disposition.ERASED, "gdpr", null);
        // an indexed document that never failed, erased: its tombstone was written by the erasure
        new org.ingestquarantine.ingest.DocumentIndex(dataSource(), 2).index(new org.ingestquarantine.ingest.IndexedDocument(
                "contracts", "indexed-only.pdf", "v1", null, null, "p1", "c1", "e1", 1, java.util.List.of(
                        new org.ingestquarantine.ingest.IndexedChunk(0, "text", new float[] {1, 0}, 1, 1))));
        QuarantineRecord tombstone = dispositions.erase("contracts", "indexed-only.pdf");
        long before = rowCount();

        assertThat(empty.payloadUri()).isNull();
        assertThat(reproducer.reproduce("contracts/empty.pdf").summary()).isEqualTo(
                "empty payload (0 bytes at the source, nothing stored): same failure permanent_input/empty"
                        + " (the running code refuses 0 bytes before parsing)");
        assertThat(reproducer.reproduce("contracts/never-fetched.pdf").summary()).isEqualTo(
                "no payload stored: the record failed at stage fetch (transient/timeout) before any bytes were kept;"
                        + " nothing to parse");
        assertThat(reproducer.reproduce(expired.dlqId()).summary()).isEqualTo("payload expired (it had sha256 "
                + expired.payloadSha256().trim() + "); the record's metadata stays; a drain goes back to the source");
        assertThat(reproducer.reproduce(erased.dlqId()).outcome()).isEqualTo(Reproduction.Outcome.PAYLOAD_ERASED);
        assertThat(reproducer.reproduce("contracts/indexed-only.pdf").summary())
                .isEqualTo("payload erased (the record is a tombstone); nothing to parse");
        assertThat(reproducer.reproduce(tombstone.dlqId()).outcome()).isEqualTo(Reproduction.Outcome.PAYLOAD_ERASED);
        assertThat(rowCount()).as("nothing written").isEqualTo(before);
    }

    /**
     * A record of a message that named no valid document keeps the raw message as its payload: reproduce parses
     * nothing (it once called the 91-byte JSON a different failure, not_pdf) and says so in one line.
     */
    @Test
    void shouldSayThereIsNothingToReproduceForAMessageThatNamedNoValidDocument() throws Exception {
        Path message = write("message.json", "{\"source\":\"contracts\",\"doc_id\":\"bad\\nname.pdf\",\"uri\":\"file:///x\"}"
                .getBytes(StandardCharsets.UTF_8));
        String invalidDocId = org.ingestquarantine.pipeline.RecordKey.invalidDocId("contracts",
                org.ingestquarantine.pipeline.RecordKey.docIdDigest("bad\nname.pdf")).docId();
        QuarantineRecord invalid = store.record(FailureEvidence.builder("contracts", invalidDocId)
                .errorClass(ErrorClass.PERMANENT_INPUT).errorFingerprint("fp-invalid").reasonCode("invalid_message")
                .payload(message).stage("receive").build());
        QuarantineRecord unreadable = store.record(FailureEvidence.builder(
                        org.ingestquarantine.pipeline.RecordKey.INVALID_MESSAGES_SOURCE, "sqs:0f3c")
                .errorClass(ErrorClass.PERMANENT_INPUT).errorFingerprint("fp-invalid").reasonCode("invalid_message")
                .payload(message).stage("receive").build());
        assertThat(invalid.payloadUri()).as("the message is kept as evidence").isNotNull();
        long before = rowCount();

        Reproduction verdict = reproducer.reproduce(invalid.dlqId());

        assertThat(verdict.outcome()).isEqualTo(Reproduction.Outcome.INVALID_MESSAGE);
        assertThat(verdict.summary()).isEqualTo("nothing to reproduce: the message named no valid document (invalid"
                + " doc_id); its stored payload is the message, not a document");
        assertThat(verdict.fingerprint()).as("nothing parsed").isNull();
        assertThat(reproducer.reproduce(unreadable.dlqId()).summary()).isEqualTo("nothing to reproduce: the message"
                + " named no valid document (unreadable message); its stored payload is the message, not a document");
        assertThat(rowCount()).as("nothing written").isEqualTo(before);
    }

    @Test
    void shouldNotParseBytesWhoseSha256IsNotTheRecords() throws Exception {
        Path pdf = write("tampered.pdf", TextPdf.of("original"));
        QuarantineRecord r = record("tampered.pdf", pdf, new IllegalStateException("x"));
        Files.write(Path.of(java.net.URI.create(r.payloadUri())), TextPdf.of("tampered"));

        Reproduction verdict = reproducer.reproduce(r.dlqId());

        assertThat(verdict.outcome()).isEqualTo(Reproduction.Outcome.PAYLOAD_MISMATCH);
        assertThat(verdict.pages()).isNull();
    }

    @Test
    void shouldRefuseAnUnknownRecord() {
        assertThatThrownBy(() -> reproducer.reproduce("contracts/missing.pdf"))
                .isInstanceOf(BadOperatorInputException.class);
    }

    private Path write(String name, byte[] bytes) throws Exception {
        return Files.write(temp.resolve(name), bytes);
    }

    private static Throwable failureOf(Path file) {
        try {
            pool.parse(file);
        } catch (ParseException e) {
            return e;
        }
        throw new AssertionError(file + " parsed");
    }

    private QuarantineRecord record(String docId, Path payload, Throwable failure) {
        QuarantineRecord r = store.record(FailureEvidence.builder("contracts", docId).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .failure(failure).payload(payload).stage("parse").build());
        assertThat(r.errorFingerprint()).isEqualTo(ErrorFingerprint.of(failure));
        return r;
    }

    private static long rowCount() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM quarantine_attempt)"
                     + " + (SELECT count(*) FROM documents) + (SELECT count(*) FROM chunks)")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
