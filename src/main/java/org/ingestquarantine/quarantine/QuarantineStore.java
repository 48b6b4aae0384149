package org.ingestquarantine.quarantine;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.ingestquarantine.db.NamedSql;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.LogSafe;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;

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

    /** Where the statement that writes a record lives; the {@code sql:} endpoint of the quarantine route runs it too. */
    public static final String RECORD_SQL = "sql/quarantine-record.sql";

    private static final int RECORD_PARAMETERS = NamedSql.load(RECORD_SQL).names().size();

    /**
     * Camel property holding the number of positional parameters of {@value #RECORD_SQL}, derived from the file
     * at start ({@link #recordParameters()}), never configured; routes/quarantine.camel.yaml gives it to its
     * {@code sql:} endpoint so camel-sql does not ask the database for the statement's metadata per record.
     */
    public static final String RECORD_PARAMETERS_PROPERTY = "quarantine.record-sql-parameters";

    /** @return the number of positional parameters of {@value #RECORD_SQL} */
    public static int recordParameters() {
        return RECORD_PARAMETERS;
    }

    private final JdbcTemplate jdbc;
    private final EvidenceRows rows;
    private final RecordStatement statement;
    private final RecordClosing closing;

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
        Objects.requireNonNull(payloads, "payloads");
        Objects.requireNonNull(owners, "owners");
        Objects.requireNonNull(clock, "clock");
        this.jdbc = SpringJdbc.template(dataSource);
        this.rows = new EvidenceRows(payloads, owners, clock);
        this.statement = new RecordStatement(dataSource);
        this.closing = new RecordClosing(jdbc, SpringJdbc.transactions(dataSource), payloads, owners, clock);
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
            statement.run(row);
            return findRecord("SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", row.get("source"),
                    row.get("doc_id")).orElseThrow();
        } catch (DataAccessException e) {
            SQLException cause = SpringJdbc.cause(e);
            throw new QuarantineWriteException("quarantine record for " + LogSafe.identity(evidence.source()) + "/"
                    + LogSafe.identity(evidence.docId()) + " was not written (" + SqlFailure.describe(cause) + "); do not acknowledge the message, pause consumption"
                    + " until PostgreSQL answers again", cause);
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
        return rows.evidenceRow(e);
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
        EvidenceRows.addDeadLetterCopy(row, copy);
    }

    /**
     * @param source connector name
     * @param docId document id
     * @return the document's record, if it ever failed
     * @throws QuarantineWriteException if the database cannot be read
     */
    public Optional<QuarantineRecord> find(String source, String docId) {
        try {
            return findRecord("SELECT * FROM quarantine WHERE source = ? AND doc_id = ?", source, docId);
        } catch (DataAccessException e) {
            throw readFailure("quarantine record " + source + "/" + docId, e);
        }
    }

    /**
     * @param dlqId a record's ULID (26 characters)
     * @return the record, if there is one with that id
     * @throws QuarantineWriteException if the database cannot be read
     */
    public Optional<QuarantineRecord> findById(String dlqId) {
        try {
            return findRecord("SELECT * FROM quarantine WHERE dlq_id = ?", dlqId);
        } catch (DataAccessException e) {
            throw readFailure("quarantine record " + dlqId, e);
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
            return jdbc.query(sql, (rs, n) -> new QuarantineAttempt(rs.getString("dlq_id"), rs.getInt("attempt_no"),
                    SqlTime.get(rs, "seen_at"), ErrorClass.fromCode(rs.getString("error_class")),
                    rs.getString("error_type"), rs.getString("error_fingerprint"), rs.getString("reason_code"),
                    rs.getString("stage"), rs.getString("source_uri"), rs.getString("source_version"), rs.getString("payload_sha256"),
                    rs.getString("parser_version"), rs.getInt("delivery_count"), rs.getString("delivery_key")), dlqId);
        } catch (DataAccessException e) {
            throw readFailure("attempts of quarantine record " + dlqId, e);
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
            return closing.close(source, docId, disposition, reasonCode, owner);
        } catch (DataAccessException | TransactionException e) {
            SQLException cause = SpringJdbc.cause(e);
            throw new QuarantineWriteException("quarantine record " + source + "/" + docId + " was not closed ("
                    + SqlFailure.describe(cause) + "); retry when PostgreSQL answers again", cause);
        }
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
        try {
            return closing.tombstone(SpringJdbc.on(c), source, docId, reasonCode);
        } catch (DataAccessException e) {
            throw SpringJdbc.cause(e);
        }
    }

    private Optional<QuarantineRecord> findRecord(String sql, Object... args) {
        return jdbc.query(sql, (rs, n) -> new QuarantineRecord(rs), args).stream().findFirst();
    }

    private static QuarantineWriteException readFailure(String what, DataAccessException e) {
        SQLException cause = SpringJdbc.cause(e);
        return new QuarantineWriteException(what + " could not be read (" + SqlFailure.describe(cause)
                + "); retry when PostgreSQL answers again", cause);
    }
}
