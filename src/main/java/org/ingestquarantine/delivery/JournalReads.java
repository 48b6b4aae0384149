package org.ingestquarantine.delivery;

import java.util.Collection;
import java.util.List;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.delivery.AttemptJournal.OpenAttempts;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The journal's reads ({@link AttemptJournal#openAttempts}, {@link AttemptJournal#settledAny},
 * {@link AttemptJournal#attempts}): open attempts, settled outcomes and the deliveries the journal counts. Each one
 * statement. Thread-safe.
 */
final class JournalReads {

    private static final String OPEN_ATTEMPTS = SpringSql.load("attempt-open-attempts.sql");
    private static final String SETTLED_ANY = "SELECT count(*) FROM attempt_journal WHERE attempt_id = ANY (?)"
            + " AND outcome IN ('indexed', 'skipped', 'quarantined', 'skipped_by_policy')";
    private static final String ATTEMPTS = "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?"
            + " AND " + AttemptClosing.COUNTED_DELIVERY;

    private final NamedParameterJdbcTemplate jdbc;
    private final AttemptClosing closing;

    JournalReads(NamedParameterJdbcTemplate jdbc, AttemptClosing closing) {
        this.jdbc = jdbc;
        this.closing = closing;
    }

    /** @see AttemptJournal#openAttempts */
    OpenAttempts openAttempts(String deliveryKey) {
        closing.writeUnwritten();
        try {
            return jdbc.query(OPEN_ATTEMPTS, SpringSql.params("deliveryKey", deliveryKey), (rs, n) -> {
                java.sql.Array ids = rs.getArray("live");
                List<Long> live = ids == null ? List.of() : List.of((Long[]) ids.getArray());
                int deaths = rs.getInt("deaths");
                return new OpenAttempts(live, deaths == 0 ? Deaths.NONE
                        : new Deaths(deaths, rs.getString("stage"), SqlTime.get(rs, "started_at")));
            }).stream().findFirst().orElse(OpenAttempts.NONE);
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("open attempts of delivery " + deliveryKey + " could not be read",
                    SpringSql.sqlException(e));
        }
    }

    /** @see AttemptJournal#settledAny */
    boolean settledAny(Collection<Long> attemptIds) {
        if (attemptIds.isEmpty()) {
            return false;
        }
        try {
            return first(SETTLED_ANY, (Object) attemptIds.toArray(Long[]::new)) > 0;
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("outcomes of attempts " + attemptIds + " could not be read",
                    SpringSql.sqlException(e));
        }
    }

    /** @see AttemptJournal#attempts */
    int attempts(String deliveryKey) {
        try {
            return (int) first(ATTEMPTS, deliveryKey);
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("attempts of delivery " + deliveryKey + " could not be read",
                    SpringSql.sqlException(e));
        }
    }

    /** @return the count the one-column query gives, 0 if it gives no row */
    private long first(String sql, Object arg) {
        return jdbc.getJdbcOperations().query(sql, (rs, n) -> rs.getLong(1), SpringSql.args(arg)).stream()
                .findFirst().orElse(0L);
    }
}
