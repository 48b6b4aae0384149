package org.ingestquarantine.delivery;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempt journal (DESIGN §2), table {@code attempt_journal}: a row is written when an attempt at a
 * message starts and closed with its outcome when it ends. An attempt that was started and never closed
 * is a death. The resource_fatal guard counts deaths, not deliveries; for Kafka, which has no delivery
 * count, {@link #attempts(String)} is the counter. Each call commits on its own. Thread-safe.
 *
 * <p>A close that cannot be written because the database is unreachable is kept in memory and written
 * before the next {@link #deaths(String)} read, so an attempt cut short by an outage (its message released,
 * or its outcome already committed) is not taken for a death. Only if this process ends before the
 * database answers again does such an attempt stay open, and then it is counted as one.
 */
public final class AttemptJournal {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptJournal.class);

    private final Jdbc jdbc;
    private final Clock clock;
    /** Closes not yet written because the database was unreachable, by attempt id. */
    private final Map<Long, UnwrittenClose> unwritten = new ConcurrentHashMap<>();

    private record UnwrittenClose(AttemptOutcome outcome, Instant closedAt) {
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of started, stage and closed times
     */
    public AttemptJournal(DataSource dataSource, Clock clock) {
        this.jdbc = new Jdbc(dataSource);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records that an attempt starts. Call {@link #deaths(String)} BEFORE this, so the count excludes the
     * attempt being opened.
     *
     * @param deliveryKey broker message identity (SQS message id, RabbitMQ message id, Kafka topic/partition/offset)
     * @param source connector name, may be null if not yet known
     * @param docId document id, may be null if not yet known
     * @param deliveryCount the broker's delivery count (1 = first); for Kafka pass {@code attempts(key) + 1}
     * @return the attempt's id, for {@link #stage} and {@link #close}
     * @throws IllegalArgumentException if {@code deliveryCount} is below 1
     * @throws JournalWriteException if the database fails
     */
    public long open(String deliveryKey, String source, String docId, int deliveryCount) {
        Objects.requireNonNull(deliveryKey, "deliveryKey");
        if (deliveryCount < 1) {
            throw new IllegalArgumentException("deliveryCount starts at 1, was " + deliveryCount);
        }
        String sql = "INSERT INTO attempt_journal (delivery_key, source, doc_id, delivery_count, started_at)"
                + " VALUES (?, ?, ?, ?, ?) RETURNING attempt_id";
        try {
            return jdbc.queryFirst(sql, rs -> rs.getLong(1), deliveryKey, source, docId, deliveryCount, now()).orElseThrow();
        } catch (SQLException e) {
            throw failure("attempt for delivery " + deliveryKey + " was not journalled", e);
        }
    }

    /**
     * Records the stage an open attempt has reached (e.g. {@code fetch}, {@code parse}, {@code index}).
     *
     * <p>The mark commits asynchronously ({@code synchronous_commit = off} for this one statement's
     * transaction, so one round trip and no WAL flush wait): it is visible to every reader at once and
     * survives a consumer that dies, but a crash of the PostgreSQL server itself may lose the marks of the
     * last few hundred milliseconds, leaving an open attempt with an earlier stage. The stage is only the
     * explanation of a death; what the guarantees rest on stays synchronous: {@link #open} commits before
     * any work, {@link #close} commits before the message is acknowledged (and its WAL flush also flushes
     * every earlier mark).
     *
     * @param attemptId an id from {@link #open}
     * @param stage the stage name
     * @throws java.util.NoSuchElementException if there is no such attempt
     * @throws JournalWriteException if the database fails
     */
    public void stage(long attemptId, String stage) {
        // set_config(..., true) lasts until the end of the statement's own (autocommit) transaction, whose
        // commit is the one it relaxes; the CTE is referenced so that it runs
        update(attemptId, """
                WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true))
                UPDATE attempt_journal SET stage = ?, stage_at = ?
                WHERE attempt_id = ? AND EXISTS (SELECT 1 FROM relaxed)
                """, stage);
    }

    /**
     * Closes an attempt with its outcome. Closing an already closed attempt overwrites its outcome. If the
     * database cannot be reached, the close is kept and written before the next {@link #deaths} read; it
     * does not throw then, because the outcome it records has already happened.
     *
     * @param attemptId an id from {@link #open}
     * @param outcome how it ended
     * @throws java.util.NoSuchElementException if there is no such attempt
     */
    public void close(long attemptId, AttemptOutcome outcome) {
        Instant closedAt = clock.instant().truncatedTo(ChronoUnit.MICROS);
        try {
            writeClose(attemptId, outcome, closedAt);
        } catch (JournalWriteException e) {
            unwritten.put(attemptId, new UnwrittenClose(outcome, closedAt));
            LOG.warn("attempt {} closed as {} but not written (PostgreSQL unreachable); it is written before the"
                    + " next death count", attemptId, outcome.code());
        }
    }

    private void writeClose(long attemptId, AttemptOutcome outcome, Instant closedAt) {
        String sql = "UPDATE attempt_journal SET outcome = ?, closed_at = ? WHERE attempt_id = ?";
        try {
            if (jdbc.update(sql, outcome.code(), closedAt, attemptId) == 0) {
                throw new NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (SQLException e) {
            throw failure("attempt " + attemptId + " was not closed", e);
        }
    }

    /**
     * Writes the closes kept while the database was unreachable. Throws if one still cannot be written:
     * deaths are not counted before every close this process knows of is in the table.
     */
    private void writeUnwrittenCloses() {
        for (Map.Entry<Long, UnwrittenClose> e : unwritten.entrySet()) {
            try {
                writeClose(e.getKey(), e.getValue().outcome(), e.getValue().closedAt());
            } catch (NoSuchElementException gone) {
                // nothing left to close
            }
            unwritten.remove(e.getKey(), e.getValue());
        }
    }

    /**
     * Same as {@link #close(long, AttemptOutcome)} with a code: {@code indexed}, {@code skipped},
     * {@code released} or {@code quarantined}.
     *
     * @throws IllegalArgumentException if {@code outcome} names no {@link AttemptOutcome}
     */
    public void close(long attemptId, String outcome) {
        close(attemptId, AttemptOutcome.fromCode(outcome));
    }

    private void update(long attemptId, String sql, String value) {
        try {
            if (jdbc.update(sql, value, now(), attemptId) == 0) {
                throw new NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (SQLException e) {
            throw failure("attempt " + attemptId + " was not updated", e);
        }
    }

    /**
     * @param deliveryKey broker message identity
     * @return attempts for the key that were started and never closed, with the last stage the most recent
     *         of them reached; {@link Deaths#NONE} if none. Closes kept during an outage are written first.
     * @throws JournalWriteException if the database fails
     */
    public Deaths deaths(String deliveryKey) {
        writeUnwrittenCloses();
        String sql = """
                SELECT count(*) OVER () AS deaths, stage, started_at FROM attempt_journal
                WHERE delivery_key = ? AND closed_at IS NULL
                ORDER BY started_at DESC, attempt_id DESC LIMIT 1
                """;
        try {
            return jdbc.queryFirst(sql, rs -> new Deaths(rs.getInt("deaths"), rs.getString("stage"),
                    SqlTime.get(rs, "started_at")), deliveryKey).orElse(Deaths.NONE);
        } catch (SQLException e) {
            throw failure("deaths of delivery " + deliveryKey + " could not be read", e);
        }
    }

    /**
     * @param deliveryKey broker message identity
     * @return all attempts ever started for the key, closed or not; 0 if none
     * @throws JournalWriteException if the database fails
     */
    public int attempts(String deliveryKey) {
        String sql = "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?";
        try {
            return jdbc.queryFirst(sql, rs -> rs.getInt(1), deliveryKey).orElse(0);
        } catch (SQLException e) {
            throw failure("attempts of delivery " + deliveryKey + " could not be read", e);
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static JournalWriteException failure(String what, SQLException e) {
        return new JournalWriteException(what + " (" + SqlFailure.describe(e)
                + "); do not start or acknowledge the message, pause consumption until PostgreSQL answers again", e);
    }
}
