package org.ingestquarantine.quarantine;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;

/**
 * One row of the {@code quarantine} table: the evidence record of DESIGN §3, one per (source, doc_id).
 * Optional fields are {@code null} when unknown. {@link #toString()} leaves out the error message (it may
 * quote document text).
 */
public final class QuarantineRecord {

    private final String dlqId;
    private final String source;
    private final String docId;
    private final String sourceUri;
    private final String sourceVersion;
    private final Instant sourceUpdatedAt;
    private final String cursorAtArrival;
    private final Long ingestSeq;
    private final String connectorVersion;
    private final String parserVersion;
    private final String chunkerVersion;
    private final String embedderVersion;
    private final String contentType;
    private final String stage;
    private final String payloadUri;
    private final String payloadSha256;
    private final Long payloadBytes;
    private final ErrorClass errorClass;
    private final String errorType;
    private final String errorMessage;
    private final String errorFingerprint;
    private final Integer fingerprintVersion;
    private final String stackTraceUri;
    private final int attempts;
    private final int quarantineWrites;
    private final Instant firstSeenAt;
    private final Instant lastSeenAt;
    private final Disposition disposition;
    private final String reasonCode;
    private final String owner;
    private final Instant closedAt;
    private final String verdictBy;
    private final int replayCount;
    private final Instant lastReplayedAt;
    private final String lastDrainRunId;

    /** Reads the current row of a {@code SELECT * FROM quarantine}. */
    QuarantineRecord(ResultSet row) throws SQLException {
        dlqId = row.getString("dlq_id");
        source = row.getString("source");
        docId = row.getString("doc_id");
        sourceUri = row.getString("source_uri");
        sourceVersion = row.getString("source_version");
        sourceUpdatedAt = SqlTime.get(row, "source_updated_at");
        cursorAtArrival = row.getString("cursor_at_arrival");
        ingestSeq = row.getObject("ingest_seq", Long.class);
        connectorVersion = row.getString("connector_version");
        parserVersion = row.getString("parser_version");
        chunkerVersion = row.getString("chunker_version");
        embedderVersion = row.getString("embedder_version");
        contentType = row.getString("content_type");
        stage = row.getString("stage");
        payloadUri = row.getString("payload_uri");
        payloadSha256 = row.getString("payload_sha256");
        payloadBytes = row.getObject("payload_bytes", Long.class);
        errorClass = ErrorClass.fromCode(row.getString("error_class"));
        errorType = row.getString("error_type");
        errorMessage = row.getString("error_message");
        errorFingerprint = row.getString("error_fingerprint");
        fingerprintVersion = row.getObject("fingerprint_version", Integer.class);
        stackTraceUri = row.getString("stack_trace_uri");
        attempts = row.getInt("attempts");
        Integer writes = row.getObject("quarantine_writes", Integer.class);
        quarantineWrites = writes == null ? attempts : writes;
        firstSeenAt = SqlTime.get(row, "first_seen_at");
        lastSeenAt = SqlTime.get(row, "last_seen_at");
        disposition = Disposition.fromCode(row.getString("disposition"));
        reasonCode = row.getString("reason_code");
        owner = row.getString("owner");
        closedAt = SqlTime.get(row, "closed_at");
        verdictBy = row.getString("verdict_by");
        replayCount = row.getInt("replay_count");
        lastReplayedAt = SqlTime.get(row, "last_replayed_at");
        String run = row.getString("last_drain_run_id");
        lastDrainRunId = run == null ? null : run.trim();
    }

    /** @return the record's ULID (26 characters), assigned at the first failure */
    public String dlqId() { return dlqId; }
    public String source() { return source; }
    public String docId() { return docId; }
    /**
     * @return the URI the document was last fetched from (or was to be), admitted by its source's trust check when
     *     it was recorded; null for a record written before records kept it, one whose URI was refused, or erased
     */
    public String sourceUri() { return sourceUri; }
    public String sourceVersion() { return sourceVersion; }
    public Instant sourceUpdatedAt() { return sourceUpdatedAt; }
    public String cursorAtArrival() { return cursorAtArrival; }
    public Long ingestSeq() { return ingestSeq; }
    public String connectorVersion() { return connectorVersion; }
    public String parserVersion() { return parserVersion; }
    public String chunkerVersion() { return chunkerVersion; }
    public String embedderVersion() { return embedderVersion; }
    public String contentType() { return contentType; }
    /** @return the stage of the latest failure */
    public String stage() { return stage; }
    /** @return the payload store URI of the latest fetched bytes; null if never fetched, expired or erased */
    public String payloadUri() { return payloadUri; }
    /** @return lower-case hex SHA-256 of the payload, or null */
    public String payloadSha256() { return payloadSha256; }
    /** @return payload size in bytes, or null */
    public Long payloadBytes() { return payloadBytes; }
    /** @return class of the latest failure */
    public ErrorClass errorClass() { return errorClass; }
    public String errorType() { return errorType; }
    /** @return message of the latest failure; may quote document text: never log it */
    public String errorMessage() { return errorMessage; }
    public String errorFingerprint() { return errorFingerprint; }
    /**
     * @return the version of {@link org.ingestquarantine.failure.ErrorFingerprint}'s algorithm that computed the
     *     fingerprint, or null: written before versioning (schema V28), or not computed by it
     */
    public Integer fingerprintVersion() { return fingerprintVersion; }
    /** @return payload store URI of the latest stack trace, or null */
    public String stackTraceUri() { return stackTraceUri; }
    /**
     * @return broker deliveries of the document that ended in this record's failures (each delivery once, as its
     *     delivery count knows them: a message redelivered three times before it was quarantined is 3), at least 1;
     *     0 only for an erased record that recorded no failure
     */
    public int attempts() { return attempts; }
    /** @return failures recorded (the attempt history's rows); at most {@link #attempts()} */
    public int quarantineWrites() { return quarantineWrites; }
    public Instant firstSeenAt() { return firstSeenAt; }
    public Instant lastSeenAt() { return lastSeenAt; }
    public Disposition disposition() { return disposition; }
    /** @return reason of the latest failure, or of the closing for a closed record; may be null */
    public String reasonCode() { return reasonCode; }
    /** @return who owns a closed record (team or person), or null */
    public String owner() { return owner; }
    /** @return when the record was closed; null while {@link Disposition#OPEN} */
    public Instant closedAt() { return closedAt; }
    /**
     * @return what decided a repaired record's verdict ({@code ingest.RepairClose}): {@code sha256}, {@code version}
     *     or {@code none}; null for a record not closed as repaired (or closed so before schema V22)
     */
    public String verdictBy() { return verdictBy; }
    /** @return times a drain replayed the record (asked its source again, whatever the verdict); 0 if never */
    public int replayCount() { return replayCount; }
    /** @return when a drain last replayed it, or null if never (or only before schema V26) */
    public Instant lastReplayedAt() { return lastReplayedAt; }
    /** @return the {@code drain_runs} row of that replay, or null */
    public String lastDrainRunId() { return lastDrainRunId; }

    @Override
    public String toString() {
        return "QuarantineRecord[dlqId=" + dlqId + ", source=" + source + ", docId=" + docId
                + ", errorClass=" + errorClass.code() + ", fingerprint=" + errorFingerprint
                + ", attempts=" + attempts + ", disposition=" + disposition.code() + "]";
    }
}
