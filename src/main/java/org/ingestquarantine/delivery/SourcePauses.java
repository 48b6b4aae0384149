package org.ingestquarantine.delivery;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The sources the failure-storm breaker paused, table {@code storm_pause} (schema V27), shared by every consumer and
 * operator on one PostgreSQL: at most one open pause per source, rows never deleted. Only stores and reads; when to
 * pause is {@link FailureStorm}'s. Every method throws {@link DatabaseAccessException} when the database cannot be
 * used. Thread-safe.
 */
public final class SourcePauses {

    /** One pause of a source, open ({@link #resumedAt()} null) or resumed. */
    public record Pause(long id, String source, String fingerprint, String errorClass, String reasonCode, int failed,
                        int deliveries, Instant stormBeganAt, Instant pausedAt, String pausedBy, Instant resumedAt,
                        String resumedBy) {

        /** @return whether the source is still paused by it */
        public boolean open() {
            return resumedAt == null;
        }

        /** @return the failing share when it paused, percent, rounded down */
        public int percent() {
            return (int) (failed * 100L / deliveries);
        }
    }

    /** What a {@link #trip} found. */
    public enum Verdict {
        /** The fingerprint is new to the source: this call paused it. */
        PAUSED,
        /** The source's records carried the fingerprint before the storm: its usual failure, not paused. */
        KNOWN,
        /** The source was paused already (another consumer saw a storm first): nothing written. */
        ALREADY_PAUSED
    }

    /**
     * @param verdict what was found
     * @param pause the source's open pause (this call's, or the one there was); null when the fingerprint is known
     * @param knownUntil for {@link Verdict#KNOWN}: the first storm beginning at which the fingerprint would no longer
     *     be known (its source's latest attempt with it that counts, plus the look-back); else null
     */
    public record Trip(Verdict verdict, Pause pause, Instant knownUntil) {
    }

    private static final String COLUMNS = "pause_id, source, error_fingerprint, error_class, reason_code, failed,"
            + " deliveries, storm_began_at, paused_at, paused_by, resumed_at, resumed_by";

    private static final String TRIP = SpringSql.load("storm-pause-trip.sql");

    private final NamedParameterJdbcTemplate jdbc;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock when pauses and resumes happen
     */
    public SourcePauses(DataSource dataSource, Clock clock) {
        this.jdbc = new NamedParameterJdbcTemplate(SpringSql.template(dataSource));
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Pauses the storm's source, in one statement, unless its fingerprint is known to the source: one of the
     * source's quarantine attempts carried it within {@code knownWithin} before the storm began. Attempts from the
     * storm of an earlier pause of the source for the same fingerprint on never make it known: that storm's cohort is
     * not the source's usual failure, so once resumed the fingerprint pauses the source again if it storms again.
     * Two consumers that trip at once write one row ({@link Verdict#ALREADY_PAUSED} for the second).
     *
     * @param storm what the consumer saw
     * @param by the consumer process ({@link AttemptLease#owner()})
     * @param knownWithin the look-back of a known fingerprint ({@code storm.known-fingerprint-days})
     * @return what was found, and the source's open pause
     */
    public Trip trip(Storm storm, String by, Duration knownWithin) {
        Instant now = now();
        try {
            Instant[] lastSeen = {null};
            List<Long> rows = jdbc.query(TRIP, SpringSql.params("began", storm.began(), "source", storm.source(),
                    "fingerprint", storm.fingerprint(), "knownWithinMs", knownWithin.toMillis(),
                    "errorClass", storm.errorClass().code(), "reasonCode", storm.reasonCode(), "failed", storm.failed(),
                    "deliveries", storm.deliveries(), "pausedAt", now, "pausedBy", by), (rs, n) -> {
                lastSeen[0] = SqlTime.get(rs, "last_seen");
                long id = rs.getLong("paused");
                return rs.wasNull() ? null : id;
            });
            Long paused = rows.isEmpty() ? null : rows.get(0);
            if (lastSeen[0] != null) {
                return new Trip(Verdict.KNOWN, null, lastSeen[0].plus(knownWithin));
            }
            Pause open = open().get(storm.source());
            return new Trip(paused != null ? Verdict.PAUSED : Verdict.ALREADY_PAUSED, open, null);
        } catch (DataAccessException e) {
            throw failure("the pause of source " + storm.source() + " was not written", SpringSql.sqlException(e));
        }
    }

    /** @return the open pauses, by source */
    public Map<String, Pause> open() {
        Map<String, Pause> open = new TreeMap<>();
        read("the paused sources", "SELECT " + COLUMNS + " FROM storm_pause WHERE resumed_at IS NULL",
                List.of()).forEach(p -> open.put(p.source(), p));
        return open;
    }

    /**
     * @param limit at most this many pauses
     * @return the open pauses first, then the resumed ones, newest first
     */
    public List<Pause> list(int limit) {
        return read("the pauses", "SELECT " + COLUMNS + " FROM storm_pause"
                + " ORDER BY resumed_at IS NOT NULL, paused_at DESC, pause_id DESC LIMIT ?", List.of(limit));
    }

    /**
     * Resumes a paused source: every consumer works on its deliveries again once it reads the pauses next.
     *
     * @param source the source
     * @param by who resumes it (an operator's name, {@code api:<name>})
     * @return the pause it ended, or empty when the source was not paused
     */
    public Optional<Pause> resume(String source, String by) {
        List<Pause> resumed = read("the resume of source " + source, "UPDATE storm_pause SET resumed_at = ?,"
                + " resumed_by = ? WHERE source = ? AND resumed_at IS NULL RETURNING " + COLUMNS,
                List.of(now(), by, source));
        return resumed.stream().findFirst();
    }

    private List<Pause> read(String what, String sql, List<Object> args) {
        try {
            return jdbc.getJdbcOperations().query(sql, (rs, n) -> pause(rs), SpringSql.args(args.toArray()));
        } catch (DataAccessException e) {
            throw failure(what + " could not be read", SpringSql.sqlException(e));
        }
    }

    private static Pause pause(ResultSet rs) throws SQLException {
        return new Pause(rs.getLong("pause_id"), rs.getString("source"), rs.getString("error_fingerprint"),
                rs.getString("error_class"), rs.getString("reason_code"), rs.getInt("failed"), rs.getInt("deliveries"),
                SqlTime.get(rs, "storm_began_at"), SqlTime.get(rs, "paused_at"), rs.getString("paused_by"),
                SqlTime.get(rs, "resumed_at"), rs.getString("resumed_by"));
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static DatabaseAccessException failure(String what, SQLException e) {
        return new DatabaseAccessException(what + " (" + SqlFailure.describe(e) + ")", e);
    }
}
