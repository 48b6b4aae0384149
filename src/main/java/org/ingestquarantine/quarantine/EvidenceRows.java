package org.ingestquarantine.quarantine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.f4b6a3.ulid.UlidCreator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.ingestquarantine.pipeline.LogSafe;

/**
 * The row of an evidence record: the named parameters of {@value QuarantineStore#RECORD_SQL}, with the payload and
 * the stack trace stored in the {@link PayloadStore} first, and the broker's dead-letter copy when there is one.
 * Thread-safe.
 */
final class EvidenceRows {

    /** Parameters of {@value QuarantineStore#RECORD_SQL} that carry the broker's dead-letter copy. */
    private static final String DEAD_LETTER_TOPIC = "dead_letter_topic";
    private static final String DEAD_LETTER_KEY = "dead_letter_key";
    private static final String DEAD_LETTER_VALUE = "dead_letter_value";
    private static final String DEAD_LETTER_HEADERS = "dead_letter_headers";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final PayloadStore payloads;
    private final Function<String, Optional<String>> owners;
    private final Clock clock;

    EvidenceRows(PayloadStore payloads, Function<String, Optional<String>> owners, Clock clock) {
        this.payloads = payloads;
        this.owners = owners;
        this.clock = clock;
    }

    /**
     * Stores the payload and the stack trace in the payload store and gives the record's row: the named
     * parameters of {@value QuarantineStore#RECORD_SQL}, with a new ULID (used only if the document has no record yet), text
     * without NUL characters and the error message cut to {@value QuarantineStore#MAX_ERROR_MESSAGE_CHARS} characters.
     *
     * @param e what is known about the failure
     * @return parameter name to value; timestamps as {@link OffsetDateTime}
     * @throws QuarantineWriteException if the payload store fails
     */
    Map<String, Object> evidenceRow(FailureEvidence e) {
        StoredObject payload = storePayload(e);
        StoredObject trace = storeTrace(e);
        Map<String, Object> row = new HashMap<>();
        row.put("dlq_id", UlidCreator.getMonotonicUlid().toString());
        row.put("source", text(e.source()));
        row.put("doc_id", text(e.docId()));
        row.put("source_uri", text(e.sourceUri()));
        row.put("source_version", text(e.sourceVersion()));
        row.put("source_updated_at", time(e.sourceUpdatedAt()));
        row.put("cursor_at_arrival", text(e.cursorAtArrival()));
        row.put("ingest_seq", e.ingestSeq());
        row.put("connector_version", text(e.connectorVersion()));
        row.put("parser_version", text(e.parserVersion()));
        row.put("chunker_version", text(e.chunkerVersion()));
        row.put("embedder_version", text(e.embedderVersion()));
        row.put("content_type", text(e.contentType()));
        row.put("stage", text(e.stage()));
        row.put("payload_uri", payload == null ? null : payload.uri());
        row.put("payload_sha256", payload == null ? null : payload.sha256());
        row.put("payload_bytes", payload == null ? null : payload.bytes());
        row.put("error_class", e.errorClass().code());
        row.put("error_type", text(e.errorType()));
        row.put("error_message", text(truncate(e.errorMessage())));
        row.put("error_fingerprint", text(e.errorFingerprint()));
        row.put("fingerprint_version", e.fingerprintVersion());
        row.put("stack_trace_uri", trace == null ? null : trace.uri());
        row.put("reason_code", text(e.reasonCode()));
        row.put("owner", e.source() == null ? null : text(owners.apply(e.source()).orElse(null)));
        row.put("seen_at", time(clock.instant().truncatedTo(ChronoUnit.MICROS)));
        row.put("delivery_key", text(e.deliveryKey()));
        row.put("delivery_count", e.deliveryCount());
        // the delivery's attempt in the journal, closed by the same statement; none here (see QuarantineRecorder)
        row.put("attempt_id", null);
        // the broker's dead-letter copy, written by the same statement; none here (see addDeadLetterCopy)
        row.put(DEAD_LETTER_TOPIC, null);
        row.put(DEAD_LETTER_KEY, null);
        row.put(DEAD_LETTER_VALUE, null);
        row.put(DEAD_LETTER_HEADERS, null);
        return row;
    }

    /**
     * Has the record's statement also write {@code copy} to the dead-letter outbox, in the record's transaction:
     * the copy exists if and only if the record committed, and a repeat of an already recorded delivery writes
     * none (see {@value QuarantineStore#RECORD_SQL}).
     *
     * @param row a row from {@link QuarantineStore#evidenceRow}, modified
     * @param copy the broker's dead-letter copy
     */
    static void addDeadLetterCopy(Map<String, Object> row, DeadLetterCopy copy) {
        row.put(DEAD_LETTER_TOPIC, copy.topic());
        row.put(DEAD_LETTER_KEY, copy.key());
        row.put(DEAD_LETTER_VALUE, copy.value());
        try {
            row.put(DEAD_LETTER_HEADERS, JSON.writeValueAsString(copy.headers()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("headers are plain strings", e);
        }
    }

    private static OffsetDateTime time(Instant instant) {
        return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    private StoredObject storePayload(FailureEvidence evidence) {
        if (evidence.payload() == null && evidence.messageBody() == null) {
            return null;
        }
        try {
            return evidence.payload() != null ? payloads.put(evidence.payload()) : payloads.put(evidence.messageBody());
        } catch (IOException e) {
            throw notStored("payload of " + LogSafe.identity(evidence.source()) + "/"
                    + LogSafe.identity(evidence.docId()), e);
        }
    }

    private StoredObject storeTrace(FailureEvidence evidence) {
        if (evidence.stackTrace() == null) {
            return null;
        }
        try {
            return payloads.put(evidence.stackTrace().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw notStored("stack trace of " + LogSafe.identity(evidence.source()) + "/"
                    + LogSafe.identity(evidence.docId()), e);
        }
    }

    /**
     * @return the failure to store an object: the store's own one line (an S3 store names its setting; a local
     *     folder's exception names a path of ours, never document text)
     */
    private static QuarantineWriteException notStored(String what, IOException e) {
        String reason = e.getMessage() == null ? e.getClass().getSimpleName()
                : e.getClass().getSimpleName() + ": " + e.getMessage().lines().findFirst().orElse("");
        return new QuarantineWriteException(what + " could not be stored (" + reason + "); do not acknowledge the"
                + " message, pause consumption until the payload store (" + PayloadStores.STORE + ") answers again", e);
    }

    /** PostgreSQL text cannot hold NUL; documents and their error messages can. */
    static String text(String value) {
        return value == null ? null : value.replace('\u0000', ' ');
    }

    private static String truncate(String message) {
        return message == null || message.length() <= QuarantineStore.MAX_ERROR_MESSAGE_CHARS
                ? message : message.substring(0, QuarantineStore.MAX_ERROR_MESSAGE_CHARS);
    }
}
