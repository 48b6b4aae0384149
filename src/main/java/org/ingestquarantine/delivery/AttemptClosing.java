package org.ingestquarantine.delivery;

import java.time.Instant;
import java.util.Map;
import java.util.NoSuchElementException;
import org.ingestquarantine.delivery.LiveAttempts.StageMark;
import org.ingestquarantine.delivery.LiveAttempts.UnwrittenClose;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The journal's closes ({@link AttemptJournal#close}): an attempt's outcome, written synchronously; kept in memory
 * while the database cannot be reached and written before the next death count ({@link #writeUnwritten}). Also
 * what a close as {@value AttemptJournal#RECORD_NOT_WRITTEN_STAGE} means to the journal's count of deliveries
 * ({@link #COUNTED_DELIVERY}). Thread-safe.
 */
final class AttemptClosing {

    private static final Logger LOG = LoggerFactory.getLogger(AttemptJournal.class);

    /**
     * SQL: the journal row is a delivery the journal counts (not one released as
     * {@value AttemptJournal#RECORD_NOT_WRITTEN_STAGE}). The one statement of it: the admitting statement and
     * {@link JournalReads#attempts} both count with it.
     */
    static final String COUNTED_DELIVERY = "(outcome IS DISTINCT FROM 'released' OR stage IS DISTINCT FROM '"
            + AttemptJournal.RECORD_NOT_WRITTEN_STAGE + "')";

    private static final String CLOSE = "UPDATE attempt_journal SET outcome = ?, closed_at = ?,"
            + " stage = coalesce(?, stage), stage_at = coalesce(?, stage_at) WHERE attempt_id = ?";

    private final JdbcTemplate jdbc;
    private final LiveAttempts attempts;

    AttemptClosing(JdbcTemplate jdbc, LiveAttempts attempts) {
        this.jdbc = jdbc;
        this.attempts = attempts;
    }

    /**
     * @param stage the stage to close at, or null: the one it last entered, if no beat has written it yet
     * @see AttemptJournal#close(long, AttemptOutcome)
     */
    void close(long attemptId, AttemptOutcome outcome, String stage) {
        Instant closedAt = attempts.now();
        try {
            write(attemptId, outcome, closedAt, stage);
            attempts.drop(attemptId);
        } catch (NoSuchElementException e) {
            if (!attempts.live.remove(attemptId)) {
                throw e;
            }
            // this process opened it: its asynchronous open was lost with PostgreSQL's last WAL (OpenCommit)
            attempts.marks.remove(attemptId);
            LOG.warn("attempt {} closed as {} but its row is gone: its open was lost in a crash of PostgreSQL"
                    + " (delivery.journal-open-commit = asynchronous); this attempt goes uncounted", attemptId,
                    outcome.code());
        } catch (JournalWriteException e) {
            // a second close of the same attempt (the broker adapter's release) keeps the stage the first gave
            attempts.unwritten.merge(attemptId, new UnwrittenClose(outcome, closedAt, stage), (kept, again) ->
                    again.stage() == null ? new UnwrittenClose(again.outcome(), again.closedAt(), kept.stage()) : again);
            LOG.warn("attempt {} closed as {} but not written (PostgreSQL unreachable); it is written before the"
                    + " next death count", attemptId, outcome.code());
        }
    }

    private void write(long attemptId, AttemptOutcome outcome, Instant closedAt, String stage) {
        StageMark mark = stage != null ? new StageMark(stage, closedAt) : attempts.marks.get(attemptId);
        try {
            if (jdbc.update(CLOSE, SpringSql.args(outcome.code(), closedAt, mark == null ? null : mark.stage(),
                    mark == null ? null : mark.at(), attemptId)) == 0) {
                throw new NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("attempt " + attemptId + " was not closed", SpringSql.sqlException(e));
        }
    }

    /**
     * Writes the closes kept while the database was unreachable. Throws if one still cannot be written:
     * deaths are not counted before every close this process knows of is in the table.
     *
     * @throws JournalWriteException if the database fails
     */
    void writeUnwritten() {
        for (Map.Entry<Long, UnwrittenClose> e : attempts.unwritten.entrySet()) {
            try {
                write(e.getKey(), e.getValue().outcome(), e.getValue().closedAt(), e.getValue().stage());
            } catch (NoSuchElementException gone) {
                // nothing left to close
            }
            attempts.unwritten.remove(e.getKey(), e.getValue());
            attempts.drop(e.getKey());
        }
    }
}
