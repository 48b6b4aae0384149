package org.ingestquarantine.delivery;

import java.util.List;
import java.util.Objects;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.delivery.AttemptJournal.Admission;
import org.ingestquarantine.delivery.AttemptJournal.OpenAttempts;
import org.ingestquarantine.ingest.IndexedVersion;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The journal's opens ({@link AttemptJournal#admit}, {@link AttemptJournal#open}): one statement each, committed
 * as {@link OpenCommit} says: asynchronously by default, {@code set_config('synchronous_commit', 'off', true)} in
 * the statement's own (autocommit) transaction. Thread-safe.
 *
 * @param open the statement of {@link #open}, its commit as the journal's {@link OpenCommit} says
 * @param admit the statement of {@link #admit}, likewise
 */
record AttemptAdmission(NamedParameterJdbcTemplate jdbc, AttemptLease lease, LiveAttempts attempts,
                        AttemptClosing closing, String open, String admit) {

    /**
     * The CTE that relaxes the statement's own (autocommit) transaction when the open commits asynchronously,
     * {@code set_config(..., true)} being {@code SET LOCAL}: it ends with that transaction, whose commit is the one it
     * relaxes. Its column {@code relaxed.v} must be selected where it is always evaluated.
     */
    private static final String RELAXED = "relaxed AS (SELECT set_config('synchronous_commit', 'off', true) AS v), ";
    /** The same CTE when the open commits synchronously: relaxes nothing. */
    private static final String UNRELAXED = "relaxed AS (SELECT current_setting('synchronous_commit') AS v), ";
    private static final String OPEN = SpringSql.load("attempt-open.sql");
    private static final String ADMIT = SpringSql.load("attempt-admit.sql")
            .replace("{counted_delivery}", AttemptClosing.COUNTED_DELIVERY);

    /**
     * @param openCommit how an open commits
     * @return the opens of a journal, their statements made once
     */
    static AttemptAdmission of(NamedParameterJdbcTemplate jdbc, AttemptLease lease, OpenCommit openCommit,
                               LiveAttempts attempts, AttemptClosing closing) {
        String relaxed = Objects.requireNonNull(openCommit, "openCommit") == OpenCommit.ASYNCHRONOUS
                ? RELAXED : UNRELAXED;
        return new AttemptAdmission(jdbc, Objects.requireNonNull(lease, "lease"), attempts, closing,
                OPEN.replace("{relaxed}", relaxed), ADMIT.replace("{relaxed}", relaxed));
    }

    /** @see AttemptJournal#open */
    long open(String deliveryKey, String source, String docId, int deliveryCount) {
        Objects.requireNonNull(deliveryKey, "deliveryKey");
        if (deliveryCount < 1) {
            throw new IllegalArgumentException("deliveryCount starts at 1, was " + deliveryCount);
        }
        try {
            long id = jdbc.query(open, SpringSql.params("deliveryKey", deliveryKey, "source", source, "docId", docId,
                    "deliveryCount", deliveryCount, "startedAt", attempts.now(), "owner", lease.owner(),
                    "leaseMs", lease.duration().toMillis()), (rs, n) -> rs.getLong(1)).stream().findFirst().orElseThrow();
            if (!lease.duration().isZero()) {
                attempts.live.add(id);
            }
            return id;
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("attempt for delivery " + deliveryKey + " was not journalled",
                    SpringSql.sqlException(e));
        }
    }

    /** @see AttemptJournal#admit */
    Admission admit(String deliveryKey, String source, String docId, Integer deliveryCount, int deathBudget) {
        Objects.requireNonNull(deliveryKey, "deliveryKey");
        if (deliveryCount != null && deliveryCount < 1) {
            throw new IllegalArgumentException("deliveryCount starts at 1, was " + deliveryCount);
        }
        closing.writeUnwritten();
        try {
            Admission admission = jdbc.query(admit, SpringSql.params("deliveryCount", deliveryCount,
                    "deliveryKey", deliveryKey, "source", source, "docId", docId, "startedAt", attempts.now(),
                    "owner", lease.owner(), "leaseMs", lease.duration().toMillis(), "deathBudget", deathBudget),
                    (rs, n) -> {
                java.sql.Array ids = rs.getArray("live");
                List<Long> liveIds = ids == null ? List.of() : List.of((Long[]) ids.getArray());
                int deaths = rs.getInt("deaths");
                long opened = rs.getLong("opened");
                Long attemptId = rs.wasNull() ? null : opened;
                String version = rs.getString("source_version");
                IndexedVersion indexed = version == null ? null : new IndexedVersion(version,
                        rs.getString("parser_version"), rs.getString("chunker_version"),
                        rs.getString("embedder_version"));
                return new Admission(new OpenAttempts(liveIds, deaths == 0 ? Deaths.NONE
                        : new Deaths(deaths, rs.getString("stage"), SqlTime.get(rs, "started_at"))), attemptId,
                        indexed, rs.getInt("delivery_count"), rs.getBoolean("open_record"), rs.getBoolean("settled"),
                        rs.getInt("pipeline_faults"), rs.getInt("storm_pauses"));
            }).stream().findFirst().orElseThrow();
            if (admission.attemptId() != null && !lease.duration().isZero()) {
                attempts.live.add(admission.attemptId());
            }
            return admission;
        } catch (DataAccessException e) {
            throw JournalWriteException.journal("attempt for delivery " + deliveryKey + " was not journalled",
                    SpringSql.sqlException(e));
        }
    }
}
