package org.ingestquarantine.delivery;

import java.util.HashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import org.ingestquarantine.delivery.LiveAttempts.StageMark;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The journal's leases and stage marks ({@link AttemptJournal#renewLeases}, {@link AttemptJournal#stage}): the
 * attempts this process renews, and the stages they entered, written with the next beat in one statement.
 * Thread-safe.
 */
record AttemptLeases(NamedParameterJdbcTemplate jdbc, AttemptLease lease, LiveAttempts attempts, AttemptClosing closing) {

    private static final String STAGE = SpringSql.load("attempt-stage.sql");
    private static final String RENEW = SpringSql.load("attempt-renew-leases.sql");

    /** @see AttemptJournal#stage */
    void stage(long attemptId, String stage) {
        Objects.requireNonNull(stage, "stage");
        if (attempts.live.contains(attemptId)) {
            attempts.marks.put(attemptId, new StageMark(stage, attempts.now()));
            return;
        }
        try {
            if (jdbc.update(STAGE, SpringSql.params("stage", stage, "stageAt", attempts.now(), "attemptId", attemptId)) == 0) {
                throw new NoSuchElementException("no journalled attempt with id " + attemptId);
            }
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("attempt " + attemptId + " was not updated", SpringSql.sqlException(e));
        }
    }

    /** @see AttemptJournal#unwrittenStage */
    Optional<String> unwrittenStage(long attemptId) {
        StageMark mark = attempts.marks.get(attemptId);
        return Optional.ofNullable(mark == null ? null : mark.stage());
    }

    /** @see AttemptJournal#forget */
    void forget(long attemptId) {
        if (!attempts.unwritten.containsKey(attemptId)) {
            attempts.drop(attemptId);
        }
    }

    /** @see AttemptJournal#closedByOutcome */
    void forgetClosed(long attemptId) {
        attempts.drop(attemptId);
    }

    /** @see AttemptJournal#renewLeases */
    int renew() {
        closing.writeUnwritten();
        if (attempts.live.isEmpty()) {
            return 0;
        }
        Long[] ids = attempts.live.toArray(Long[]::new);
        String[] stages = new String[ids.length];
        String[] stageAts = new String[ids.length];
        Map<Long, StageMark> sent = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            StageMark mark = attempts.marks.get(ids[i]);
            if (mark != null) {
                stages[i] = mark.stage();
                stageAts[i] = mark.at().toString();
                sent.put(ids[i], mark);
            }
        }
        try {
            int renewed = jdbc.update(RENEW, SpringSql.params("leaseMs", lease.duration().toMillis(), "ids", ids,
                    "stages", stages, "stageAts", stageAts));
            // a mark entered meanwhile stays for the next beat
            sent.forEach(attempts.marks::remove);
            return renewed;
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("the leases of " + ids.length + " live attempt(s) were not renewed",
                    SpringSql.sqlException(e));
        }
    }

    /** @see AttemptJournal#liveInThisProcess */
    int live() {
        return attempts.live.size();
    }
}
