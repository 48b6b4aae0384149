package org.ingestquarantine.quarantine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.f4b6a3.ulid.UlidCreator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.NamedSql;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.LogSafe;

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

    /** Where the statement that writes a record lives; the {@code sql:} endpoint of the quarantine route runs it too. */
    public static final String RECORD_SQL = "sql/quarantine-record.sql";

    private static final NamedSql RECORD = NamedSql.load(RECORD_SQL);

    /** Parameters of {@value #RECORD_SQL} that carry the broker's dead-letter copy ({@link #addDeadLetterCopy}). */
    private static final String DEAD_LETTER_TOPIC = "dead_letter_topic";
    private static final String DEAD_LETTER_KEY = "dead_letter_key";
    private static final String DEAD_LETTER_VALUE = "dead_letter_value";
    private static final String DEAD_LETTER_HEADERS = "dead_letter_headers";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Camel property holding the number of positional parameters of {@value #RECORD_SQL}, derived from the file
     * at start ({@link #recordParameters()}), never configured; routes/quarantine.camel.yaml gives it to its
     * {@code sql:} endpoint so camel-sql does not ask the database for the statement's metadata per record.
     */
    public static final String RECORD_PARAMETERS_PROPERTY = "quarantine.record-sql-parameters";

    /** @return the number of positional parameters of {@value #RECORD_SQL} */
    public static int recordParameters() {
        return RECORD.names().size();
    }

    private final Jdbc jdbc;
    private final PayloadStore payloads;
    private final Function<String, Optional<String>> owners;
    private final Clock clock;

    /**
     * A store whose records name no owner.
     *
     * @see #QuarantineStore(DataSource, PayloadStore, Function, Clock)
     */
    public QuarantineStore(DataSource dataSource, PayloadStore payloads, Clock clock) {
        this(dataSource, payloads, source -> Optional.empty(), clock);
    }

    /**
     * @param dataSource a pool on the migrated schema (see {@link org.ingestquarantine.db.Database})
     * @param payloads where payloads and stack traces go
     * @param owners the team owning a source (configuration {@code sources.<name>.owner}), empty if none; written
     *     on a record when it is created, and on a record that names none when it fails again
     * @param clock source of {@code first_seen_at}, {@code last_seen_at} and {@code closed_at}
     */
    public QuarantineStore(DataSource dataSource, PayloadStore payloads, Function<String, Optional<String>> owners,
                           Clock clock) {
        this.jdbc = new Jdbc(dataSource);
        this.payloads = Objects.requireNonNull(payloads, "payloads");
        this.owners = Objects.requireNonNull(owners, "owners");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records one failure of a document. A first failure creates the row (new ULID, attempts 1,
     * disposition open); a repeat failure adds 1 to attempts, sets last_seen_at and the latest error fields,
     * keeps the last known source URI, payload and versions when the evidence has none, and re-opens a record closed as
     * repaired, deleted at source or erased (an unindexable record stays closed). An erased document that fails
     * again was published again by its producer: a new arrival, recorded with this failure's evidence. Either way one
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
        Map<String, Object> row = evidenceRow(evidence);
        try {
            try {
                jdbc.query(RECORD, row, rs -> rs.getString(1));
            } catch (SQLException e) {
                if (!SQLSTATE_UNIQUE_VIOLATION.equals(e.getSQLState())) {
                    throw e;
                }
                // A concurrent write of the same delivery won the race: once more, the statement now sees it.
                jdbc.query(RECORD, row, rs -> rs.getString(1));
            }
            return jdbc.queryFirst("SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", QuarantineRecord::new,
                    row.get("source"), row.get("doc_id")).orElseThrow();
        } catch (SQLException e) {
            throw new QuarantineWriteException("quarantine record for " + LogSafe.identity(evidence.source()) + "/"
                    + LogSafe.identity(evidence.docId()) + " was not written (" + SqlFailure.describe(e) + "); do not acknowledge the message, pause consumption"
                    + " until PostgreSQL answers again", e);
        }
    }

    /**
     * Stores the payload and the stack trace in the payload store and gives the record's row: the named
     * parameters of {@value #RECORD_SQL}, with a new ULID (used only if the document has no record yet), text
     * without NUL characters and the error message cut to {@value #MAX_ERROR_MESSAGE_CHARS} characters.
     *
     * @param e what is known about the failure
     * @return parameter name to value; timestamps as {@link OffsetDateTime}
     * @throws QuarantineWriteException if the payload store fails
     */
    public Map<String, Object> evidenceRow(FailureEvidence e) {
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
     * none (see {@value #RECORD_SQL}).
     *
     * @param row a row from {@link #evidenceRow}, modified
     * @param copy the broker's dead-letter copy
     */
    public static void addDeadLetterCopy(Map<String, Object> row, DeadLetterCopy copy) {
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

    /**
     * @param source connector name
     * @param docId document id
     * @return the document's record, if it ever failed
     * @throws QuarantineWriteException if the database cannot be read
     */
    public Optional<QuarantineRecord> find(String source, String docId) {
        try {
            return jdbc.queryFirst("SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", QuarantineRecord::new,
                    source, docId);
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
        try {
            return jdbc.queryFirst("SELECT * FROM quarantine WHERE dlq_id = ?", QuarantineRecord::new, dlqId);
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
        try {
            return jdbc.query(sql, rs -> new QuarantineAttempt(rs.getString("dlq_id"), rs.getInt("attempt_no"),
                    SqlTime.get(rs, "seen_at"), ErrorClass.fromCode(rs.getString("error_class")),
                    rs.getString("error_type"), rs.getString("error_fingerprint"), rs.getString("reason_code"),
                    rs.getString("stage"), rs.getString("source_uri"), rs.getString("source_version"), rs.getString("payload_sha256"),
                    rs.getString("parser_version"), rs.getInt("delivery_count"), rs.getString("delivery_key")), dlqId);
        } catch (SQLException e) {
            throw new QuarantineWriteException("attempts of quarantine record " + dlqId + " could not be read ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    /**
     * Closes a record with a disposition (drain or operator). Sets disposition, closed_at (now), and, when
     * given, reason_code, and owner where the record names none (an owner written at creation is kept).
     * Closing with {@link Disposition#ERASED} also deletes the payload and stack trace objects (an object another
     * record still names, the same bytes, is kept) and clears source_uri (it can name the document), payload_uri,
     * payload_sha256, payload_bytes, stack_trace_uri, error_message, source_version and source_updated_at (for a
     * folder source the version IS the content's sha256), and the source_uri, payload_sha256 and source_version of
     * every attempt of its history, leaving a tombstone.
     *
     * @param source connector name
     * @param docId document id
     * @param disposition anything but {@link Disposition#OPEN}
     * @param reasonCode why, e.g. {@code vendor_format}; null keeps the stored reason
     * @param owner who owns the outcome (team or person) when the record names no owner yet; may be null
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
        try {
            return jdbc.inTransaction(c -> close(c, source, docId, disposition, reasonCode, owner));
        } catch (SQLException e) {
            throw new QuarantineWriteException("quarantine record " + source + "/" + docId + " was not closed ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    /**
     * {@link #close(String, String, Disposition, String, String)}'s work in its transaction. (A record repaired by
     * an index write, the drain's or a later delivery's, is closed by {@code ingest.RepairClose} in that write's
     * transaction instead.)
     *
     * @return the record as it will be once the transaction commits
     * @throws java.util.NoSuchElementException if the document has no record
     */
    private QuarantineRecord close(Connection c, String source, String docId, Disposition disposition,
                                   String reasonCode, String owner) throws SQLException {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        boolean erase = disposition == Disposition.ERASED;
        String sql = "UPDATE quarantine SET disposition = ?, closed_at = ?, owner = COALESCE(owner, ?),"
                + " reason_code = COALESCE(?, reason_code)"
                + (erase ? ", source_uri = NULL, payload_uri = NULL, payload_sha256 = NULL, payload_bytes = NULL,"
                        + " stack_trace_uri = NULL, error_message = NULL, source_version = NULL,"
                        + " source_updated_at = NULL" : "")
                + " WHERE source = ? AND doc_id = ?";
        QuarantineRecord before = findBy(c, "SELECT * FROM quarantine WHERE source = ? AND doc_id = ? FOR UPDATE",
                source, docId).orElseThrow(() -> new java.util.NoSuchElementException(
                        "no quarantine record for " + source + "/" + docId));
        Jdbc.update(c, sql, disposition.code(), now, owner, reasonCode, source, docId);
        if (erase) {
            Jdbc.update(c, "UPDATE quarantine_attempt SET source_uri = NULL, payload_sha256 = NULL,"
                    + " source_version = NULL WHERE dlq_id = ?",
                    before.dlqId());
            deleteObjectNamedByNoOther(c, before.payloadUri(), before.dlqId());
            deleteObjectNamedByNoOther(c, before.stackTraceUri(), before.dlqId());
        }
        return findBy(c, "SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", source, docId).orElseThrow();
    }

    /**
     * Leaves a tombstone for a document that has no record: disposition {@code erased}, closed, first and last seen
     * now, attempts 0 (it never failed: no attempt row), error class {@code unclassified}, the source's configured
     * owner, and nothing of the document (no payload, versions, error text or hashes). Erasing an indexed document
     * that never failed writes it, so coverage keeps the document in its denominator. The summaries follow by
     * trigger in the caller's transaction.
     *
     * @param c a connection with auto-commit off; the caller commits or rolls back
     * @param source connector name
     * @param docId document id
     * @param reasonCode the tombstone's reason code, e.g. {@code erased}
     * @return the tombstone as it will be once the caller commits, or empty when the document has a record
     *     already (nothing is written; close that record instead)
     * @throws SQLException if the database fails; the caller rolls back
     */
    public Optional<QuarantineRecord> tombstone(Connection c, String source, String docId, String reasonCode)
            throws SQLException {
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        String owner = text(owners.apply(source).orElse(null));
        return Jdbc.queryFirst(c, """
                INSERT INTO quarantine (dlq_id, source, doc_id, error_class, attempts, first_seen_at, last_seen_at,
                    disposition, reason_code, owner, closed_at)
                VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (source, doc_id) DO NOTHING
                RETURNING *
                """, QuarantineRecord::new, UlidCreator.getMonotonicUlid().toString(), text(source), text(docId),
                ErrorClass.UNCLASSIFIED.code(), now, now, Disposition.ERASED.code(), reasonCode, owner, now);
    }

    /**
     * Objects are content-addressed: another record that saw the same bytes names the same object, and erasing
     * this record must not take that record's evidence. Such an object is kept (it holds no byte that only the
     * erased record named).
     */
    private void deleteObjectNamedByNoOther(Connection c, String uri, String dlqId) throws SQLException {
        if (uri == null || !Jdbc.query(c, "SELECT 1 FROM quarantine WHERE (payload_uri = ? OR stack_trace_uri = ?)"
                + " AND dlq_id <> ? LIMIT 1", rs -> 1, uri, uri, dlqId).isEmpty()) {
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
        return Jdbc.queryFirst(c, sql, QuarantineRecord::new, (Object[]) args);
    }

    /** PostgreSQL text cannot hold NUL; documents and their error messages can. */
    private static String text(String value) {
        return value == null ? null : value.replace('\u0000', ' ');
    }

    private static String truncate(String message) {
        return message == null || message.length() <= MAX_ERROR_MESSAGE_CHARS
                ? message : message.substring(0, MAX_ERROR_MESSAGE_CHARS);
    }
}
