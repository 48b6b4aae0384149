package org.ingestquarantine.quarantine;

import com.github.f4b6a3.ulid.UlidCreator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;

/**
 * Writes and reads evidence records: the {@code quarantine} table (one row per source and document) and
 * its {@code quarantine_attempt} history.
 *
 * <p>{@link #record(FailureEvidence)} stores the payload and stack trace in the {@link PayloadStore}, then
 * in ONE transaction inserts or updates the row and appends one attempt. It throws
 * {@link QuarantineWriteException} when anything fails, and the caller must then not acknowledge the
 * message. Rows are never deleted. Thread-safe; every call uses its own connection.
 */
public final class QuarantineStore {

    /** Longest error message kept in the row, in characters; the full text stays in the stack trace object. */
    public static final int MAX_ERROR_MESSAGE_CHARS = 2000;

    private static final String SQLSTATE_UNIQUE_VIOLATION = "23505";

    private static final String UPSERT = """
            INSERT INTO quarantine (dlq_id, source, doc_id, source_version, source_updated_at, cursor_at_arrival,
                ingest_seq, connector_version, parser_version, chunker_version, embedder_version, content_type,
                stage, payload_uri, payload_sha256, payload_bytes, error_class, error_type, error_message,
                error_fingerprint, stack_trace_uri, attempts, first_seen_at, last_seen_at, disposition, reason_code)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 'open', ?)
            ON CONFLICT (source, doc_id) DO UPDATE SET
                source_version    = COALESCE(EXCLUDED.source_version, quarantine.source_version),
                source_updated_at = COALESCE(EXCLUDED.source_updated_at, quarantine.source_updated_at),
                cursor_at_arrival = COALESCE(EXCLUDED.cursor_at_arrival, quarantine.cursor_at_arrival),
                ingest_seq        = COALESCE(EXCLUDED.ingest_seq, quarantine.ingest_seq),
                connector_version = COALESCE(EXCLUDED.connector_version, quarantine.connector_version),
                parser_version    = COALESCE(EXCLUDED.parser_version, quarantine.parser_version),
                chunker_version   = COALESCE(EXCLUDED.chunker_version, quarantine.chunker_version),
                embedder_version  = COALESCE(EXCLUDED.embedder_version, quarantine.embedder_version),
                content_type      = COALESCE(EXCLUDED.content_type, quarantine.content_type),
                stage             = EXCLUDED.stage,
                payload_uri       = CASE WHEN quarantine.disposition = 'erased' THEN NULL
                                         ELSE COALESCE(EXCLUDED.payload_uri, quarantine.payload_uri) END,
                payload_sha256    = CASE WHEN quarantine.disposition = 'erased' THEN NULL
                                         WHEN EXCLUDED.payload_uri IS NULL THEN quarantine.payload_sha256
                                         ELSE EXCLUDED.payload_sha256 END,
                payload_bytes     = CASE WHEN quarantine.disposition = 'erased' THEN NULL
                                         WHEN EXCLUDED.payload_uri IS NULL THEN quarantine.payload_bytes
                                         ELSE EXCLUDED.payload_bytes END,
                error_class       = EXCLUDED.error_class,
                error_type        = EXCLUDED.error_type,
                error_message     = CASE WHEN quarantine.disposition = 'erased' THEN NULL ELSE EXCLUDED.error_message END,
                error_fingerprint = EXCLUDED.error_fingerprint,
                stack_trace_uri   = CASE WHEN quarantine.disposition = 'erased' THEN NULL ELSE EXCLUDED.stack_trace_uri END,
                attempts          = quarantine.attempts + 1,
                last_seen_at      = EXCLUDED.last_seen_at,
                disposition       = CASE WHEN quarantine.disposition IN
                                             ('repaired_parser_fixed', 'repaired_content_changed', 'deleted_at_source')
                                         THEN 'open' ELSE quarantine.disposition END,
                closed_at         = CASE WHEN quarantine.disposition IN
                                             ('repaired_parser_fixed', 'repaired_content_changed', 'deleted_at_source')
                                         THEN NULL ELSE quarantine.closed_at END,
                reason_code       = CASE WHEN quarantine.disposition IN ('unindexable', 'erased')
                                         THEN quarantine.reason_code ELSE EXCLUDED.reason_code END
            RETURNING dlq_id, attempts
            """;

    private static final String APPEND_ATTEMPT = """
            INSERT INTO quarantine_attempt (dlq_id, attempt_no, seen_at, error_class, error_type, error_fingerprint,
                reason_code, stage, source_version, payload_sha256, parser_version, delivery_count, delivery_key)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """;

    private static final String FIND_DELIVERY = """
            SELECT q.* FROM quarantine_attempt a JOIN quarantine q ON q.dlq_id = a.dlq_id
            WHERE a.delivery_key = ? AND a.delivery_count = ?
            """;

    private final DataSource dataSource;
    private final PayloadStore payloads;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema (see {@link org.ingestquarantine.db.Database})
     * @param payloads where payloads and stack traces go
     * @param clock source of {@code first_seen_at}, {@code last_seen_at} and {@code closed_at}
     */
    public QuarantineStore(DataSource dataSource, PayloadStore payloads, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records one failure of a document. A first failure creates the row (new ULID, attempts 1,
     * disposition open); a repeat failure adds 1 to attempts, sets last_seen_at and the latest error fields,
     * keeps the last known payload and versions when the evidence has none, and re-opens a record closed as
     * repaired or deleted at source (an unindexable or erased record stays closed). Either way one
     * {@link QuarantineAttempt} is appended.
     *
     * <p>Idempotent per delivery: if an attempt with the same non-null {@code deliveryKey} and
     * {@code deliveryCount} was already recorded (its ack was lost), nothing is written and the stored
     * record is returned.
     *
     * @param evidence what is known about the failure
     * @return the record as committed
     * @throws QuarantineWriteException if the payload store or the database fails; nothing was committed
     *         and the message must not be acknowledged
     */
    public QuarantineRecord record(FailureEvidence evidence) {
        StoredObject payload = storePayload(evidence);
        StoredObject trace = storeTrace(evidence);
        try {
            try {
                return recordRow(evidence, payload, trace);
            } catch (SQLException e) {
                if (!SQLSTATE_UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    throw e;
                }
                // A concurrent write of the same delivery won the race: retry once, the guard now sees it.
                return recordRow(evidence, payload, trace);
            }
        } catch (SQLException e) {
            throw new QuarantineWriteException("quarantine record for " + evidence.source() + "/" + evidence.docId()
                    + " was not written (" + SqlFailure.describe(e) + "); do not acknowledge the message, pause consumption"
                    + " until PostgreSQL answers again", e);
        }
    }

    private StoredObject storePayload(FailureEvidence evidence) {
        if (evidence.payload() == null) {
            return null;
        }
        try {
            return payloads.put(evidence.payload());
        } catch (IOException e) {
            throw new QuarantineWriteException("payload of " + evidence.source() + "/" + evidence.docId()
                    + " could not be stored (" + e.getClass().getSimpleName() + "); do not acknowledge the message,"
                    + " check that the payload store is writable", e);
        }
    }

    private StoredObject storeTrace(FailureEvidence evidence) {
        if (evidence.stackTrace() == null) {
            return null;
        }
        try {
            return payloads.put(evidence.stackTrace().getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new QuarantineWriteException("stack trace of " + evidence.source() + "/" + evidence.docId()
                    + " could not be stored (" + e.getClass().getSimpleName() + "); do not acknowledge the message,"
                    + " check that the payload store is writable", e);
        }
    }

    private QuarantineRecord recordRow(FailureEvidence e, StoredObject payload, StoredObject trace)
            throws SQLException {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                QuarantineRecord result = alreadyRecorded(c, e);
                if (result == null) {
                    String dlqId;
                    int attemptNo;
                    try (PreparedStatement s = c.prepareStatement(UPSERT)) {
                        bindUpsert(s, e, payload, trace, now);
                        try (ResultSet rs = s.executeQuery()) {
                            rs.next();
                            dlqId = rs.getString(1);
                            attemptNo = rs.getInt(2);
                        }
                    }
                    try (PreparedStatement s = c.prepareStatement(APPEND_ATTEMPT)) {
                        bindAttempt(s, dlqId, attemptNo, now, e, payload);
                        s.executeUpdate();
                    }
                    result = findBy(c, "SELECT * FROM quarantine WHERE dlq_id = ?", dlqId).orElseThrow();
                }
                c.commit();
                return result;
            } catch (SQLException | RuntimeException ex) {
                rollbackQuietly(c, ex);
                throw ex;
            }
        }
    }

    private static QuarantineRecord alreadyRecorded(Connection c, FailureEvidence e) throws SQLException {
        if (e.deliveryKey() == null) {
            return null;
        }
        try (PreparedStatement s = c.prepareStatement(FIND_DELIVERY)) {
            s.setString(1, e.deliveryKey());
            s.setInt(2, e.deliveryCount());
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? new QuarantineRecord(rs) : null;
            }
        }
    }

    private static void bindUpsert(PreparedStatement s, FailureEvidence e, StoredObject payload, StoredObject trace,
                                   Instant now) throws SQLException {
        int i = 1;
        s.setString(i++, text(UlidCreator.getMonotonicUlid().toString()));
        s.setString(i++, text(e.source()));
        s.setString(i++, text(e.docId()));
        s.setString(i++, text(e.sourceVersion()));
        SqlTime.set(s, i++, e.sourceUpdatedAt());
        s.setString(i++, text(e.cursorAtArrival()));
        setLong(s, i++, e.ingestSeq());
        s.setString(i++, text(e.connectorVersion()));
        s.setString(i++, text(e.parserVersion()));
        s.setString(i++, text(e.chunkerVersion()));
        s.setString(i++, text(e.embedderVersion()));
        s.setString(i++, text(e.contentType()));
        s.setString(i++, text(e.stage()));
        s.setString(i++, text(payload == null ? null : payload.uri()));
        s.setString(i++, text(payload == null ? null : payload.sha256()));
        setLong(s, i++, payload == null ? null : payload.bytes());
        s.setString(i++, text(e.errorClass().code()));
        s.setString(i++, text(e.errorType()));
        s.setString(i++, text(truncate(e.errorMessage())));
        s.setString(i++, text(e.errorFingerprint()));
        s.setString(i++, text(trace == null ? null : trace.uri()));
        SqlTime.set(s, i++, now);
        SqlTime.set(s, i++, now);
        s.setString(i, text(e.reasonCode()));
    }

    private static void bindAttempt(PreparedStatement s, String dlqId, int attemptNo, Instant now, FailureEvidence e,
                                    StoredObject payload) throws SQLException {
        s.setString(1, dlqId);
        s.setInt(2, attemptNo);
        SqlTime.set(s, 3, now);
        s.setString(4, text(e.errorClass().code()));
        s.setString(5, text(e.errorType()));
        s.setString(6, text(e.errorFingerprint()));
        s.setString(7, text(e.reasonCode()));
        s.setString(8, text(e.stage()));
        s.setString(9, text(e.sourceVersion()));
        s.setString(10, text(payload == null ? null : payload.sha256()));
        s.setString(11, text(e.parserVersion()));
        s.setInt(12, e.deliveryCount());
        s.setString(13, text(e.deliveryKey()));
    }

    /**
     * @param source connector name
     * @param docId document id
     * @return the document's record, if it ever failed
     * @throws QuarantineWriteException if the database cannot be read
     */
    public Optional<QuarantineRecord> find(String source, String docId) {
        try (Connection c = dataSource.getConnection()) {
            return findBy(c, "SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", source, docId);
        } catch (SQLException e) {
            throw new QuarantineWriteException("quarantine record " + source + "/" + docId + " could not be read ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    /**
     * @param dlqId a record's ULID (26 characters)
     * @return the record, if there is one with that id
     * @throws QuarantineWriteException if the database cannot be read
     */
    public Optional<QuarantineRecord> findById(String dlqId) {
        try (Connection c = dataSource.getConnection()) {
            return findBy(c, "SELECT * FROM quarantine WHERE dlq_id = ?", dlqId);
        } catch (SQLException e) {
            throw new QuarantineWriteException("quarantine record " + dlqId + " could not be read ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    /**
     * @param dlqId a record's ULID
     * @return its attempts, oldest first; empty if there is no such record
     * @throws QuarantineWriteException if the database cannot be read
     */
    public List<QuarantineAttempt> attempts(String dlqId) {
        String sql = "SELECT * FROM quarantine_attempt WHERE dlq_id = ? ORDER BY attempt_no";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, dlqId);
            List<QuarantineAttempt> result = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    result.add(new QuarantineAttempt(rs.getString("dlq_id"), rs.getInt("attempt_no"),
                            SqlTime.get(rs, "seen_at"), ErrorClass.fromCode(rs.getString("error_class")),
                            rs.getString("error_type"), rs.getString("error_fingerprint"), rs.getString("reason_code"),
                            rs.getString("stage"), rs.getString("source_version"), rs.getString("payload_sha256"),
                            rs.getString("parser_version"), rs.getInt("delivery_count"), rs.getString("delivery_key")));
                }
            }
            return result;
        } catch (SQLException e) {
            throw new QuarantineWriteException("attempts of quarantine record " + dlqId + " could not be read ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    /**
     * Closes a record with a disposition (drain or operator). Sets disposition, closed_at (now),
     * owner and, when given, reason_code. Closing with {@link Disposition#ERASED} also deletes the payload and
     * stack trace objects and clears payload_uri, stack_trace_uri and error_message, leaving a tombstone.
     *
     * @param source connector name
     * @param docId document id
     * @param disposition anything but {@link Disposition#OPEN}
     * @param reasonCode why, e.g. {@code vendor_format}; null keeps the stored reason
     * @param owner who owns the outcome (team or person), may be null
     * @return the record as committed
     * @throws IllegalArgumentException if {@code disposition} is OPEN
     * @throws java.util.NoSuchElementException if the document has no record
     * @throws QuarantineWriteException if the database or payload store fails
     */
    public QuarantineRecord close(String source, String docId, Disposition disposition, String reasonCode,
                                  String owner) {
        if (disposition == Disposition.OPEN) {
            throw new IllegalArgumentException("a record is closed with a disposition other than open");
        }
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        boolean erase = disposition == Disposition.ERASED;
        String sql = "UPDATE quarantine SET disposition = ?, closed_at = ?, owner = ?,"
                + " reason_code = COALESCE(?, reason_code)"
                + (erase ? ", payload_uri = NULL, payload_sha256 = NULL, payload_bytes = NULL,"
                        + " stack_trace_uri = NULL, error_message = NULL" : "")
                + " WHERE source = ? AND doc_id = ?";
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                Optional<QuarantineRecord> before = findBy(c,
                        "SELECT * FROM quarantine WHERE source = ? AND doc_id = ? FOR UPDATE", source, docId);
                if (before.isEmpty()) {
                    c.rollback();
                    throw new java.util.NoSuchElementException("no quarantine record for " + source + "/" + docId);
                }
                try (PreparedStatement s = c.prepareStatement(sql)) {
                    s.setString(1, disposition.code());
                    SqlTime.set(s, 2, now);
                    s.setString(3, owner);
                    s.setString(4, reasonCode);
                    s.setString(5, source);
                    s.setString(6, docId);
                    s.executeUpdate();
                }
                if (erase) {
                    deleteObject(before.get().payloadUri());
                    deleteObject(before.get().stackTraceUri());
                }
                QuarantineRecord after = findBy(c, "SELECT * FROM quarantine WHERE source = ? AND doc_id = ?",
                        source, docId).orElseThrow();
                c.commit();
                return after;
            } catch (SQLException | RuntimeException ex) {
                rollbackQuietly(c, ex);
                throw ex;
            }
        } catch (SQLException e) {
            throw new QuarantineWriteException("quarantine record " + source + "/" + docId + " was not closed ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    private void deleteObject(String uri) {
        if (uri == null) {
            return;
        }
        try {
            payloads.delete(uri);
        } catch (IOException e) {
            throw new QuarantineWriteException("object " + uri + " could not be erased ("
                    + e.getClass().getSimpleName() + "); the record was not changed, retry the erasure", e);
        }
    }

    private static Optional<QuarantineRecord> findBy(Connection c, String sql, String... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setString(i + 1, args[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.of(new QuarantineRecord(rs)) : Optional.empty();
            }
        }
    }

    private static void setLong(PreparedStatement s, int index, Long value) throws SQLException {
        if (value == null) {
            s.setNull(index, Types.BIGINT);
        } else {
            s.setLong(index, value);
        }
    }

    /** PostgreSQL text cannot hold NUL; documents and their error messages can. */
    private static String text(String value) {
        return value == null ? null : value.replace('\u0000', ' ');
    }

    private static String truncate(String message) {
        return message == null || message.length() <= MAX_ERROR_MESSAGE_CHARS
                ? message : message.substring(0, MAX_ERROR_MESSAGE_CHARS);
    }

    private static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
