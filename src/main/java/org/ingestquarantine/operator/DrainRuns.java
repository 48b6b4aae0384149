package org.ingestquarantine.operator;

import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.ingest.RepairClose;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * A drain run's rows: {@code drain_runs} (started with its fixed selection, {@code drain_run_items}, in one
 * transaction; closed with its status and counts) and each item's outcome, with the replay history of a record whose
 * source was asked again (schema V26). Every method throws {@link DatabaseAccessException} when the database fails.
 */
final class DrainRuns {

    private static final String START = OperatorSql.load("drain-run-start.sql");
    private static final String FINISH = OperatorSql.load("drain-run-finish.sql");
    private static final String REPLAYED = OperatorSql.load("drain-item-replayed.sql");

    /** The run's fixed selection. */
    record Selection(int cohortDocuments, List<String> dlqIds) {
    }

    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final TransactionTemplate snapshot;
    private final Clock clock;

    DrainRuns(DataSource dataSource, Clock clock) {
        this.jdbc = OperatorSql.named(dataSource);
        this.transactions = OperatorSql.transactions(dataSource);
        this.snapshot = OperatorSql.repeatableRead(dataSource);
        this.clock = clock;
    }

    /**
     * Fixes the selection: counts the cohort, selects its oldest records and writes the run row and its items, in
     * one repeatable-read transaction.
     *
     * @param expectedCohort the open records a preview counted, or null for any number
     * @throws ActionRefusedException if the cohort's count is not {@code expectedCohort}; nothing written
     * @throws BadOperatorInputException if no open record matches; nothing written
     */
    Selection start(String runId, Drain.Request r, Integer expectedCohort) {
        DrainCohort cohort = new DrainCohort(r);
        try {
            return snapshot.execute(tx -> {
                int documents = cohort.count(jdbc);
                if (expectedCohort != null && documents != expectedCohort) {
                    throw ActionRefusedException.countChanged(documents, expectedCohort);
                }
                if (documents == 0) {
                    throw cohort.matchesNothing();
                }
                List<String> ids = cohort.oldest(jdbc).stream().map(DrainCohort.Member::dlqId).toList();
                jdbc.update(START, new MapSqlParameterSource("runId", runId)
                        .addValue("startedBy", r.startedBy() == null ? "unknown" : r.startedBy())
                        .addValue("startedAt", OperatorSql.time(now()))
                        .addValue("fingerprint", r.fingerprint())
                        .addValue("parserVersion", r.parserVersion(), Types.VARCHAR)
                        .addValue("errorClass", r.errorClass(), Types.VARCHAR)
                        .addValue("limit", r.limit()).addValue("rate", r.ratePerSecond())
                        .addValue("cohort", documents).addValue("selected", ids.size()));
                jdbc.update("INSERT INTO drain_run_items (run_id, dlq_id) SELECT :runId, unnest(CAST(:ids AS text[]))",
                        new MapSqlParameterSource("runId", runId).addValue("ids", ids.toArray(new String[0])));
                return new Selection(documents, ids);
            });
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("the drain did not start", e);
        }
    }

    /**
     * Writes the item's outcome and, for a record the run replayed, its replay history (one more
     * {@code replay_count}, {@code last_replayed_at} now, {@code last_drain_run_id} this run), in one transaction.
     *
     * @param replayed whether the record's source was asked again (a HEAD or GET was made for it)
     */
    void markItem(String runId, String dlqId, String outcome, RepairClose.Evidence by, boolean replayed) {
        try {
            transactions.executeWithoutResult(tx -> {
                jdbc.update("UPDATE drain_run_items SET outcome = :outcome, verdict_by = :by"
                        + " WHERE run_id = :runId AND dlq_id = :dlqId", new MapSqlParameterSource("outcome", outcome)
                        .addValue("by", by == null ? null : by.code(), Types.VARCHAR)
                        .addValue("runId", runId).addValue("dlqId", dlqId));
                if (replayed) {
                    jdbc.update(REPLAYED, new MapSqlParameterSource("replayedAt", OperatorSql.time(now()))
                            .addValue("runId", runId).addValue("dlqId", dlqId));
                }
            });
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("the outcome of " + dlqId + " in drain run " + runId + " was not written", e);
        }
    }

    /** Closes the run row: its status, outcome counts and source requests. */
    void finish(String runId, boolean interrupted, Map<String, Long> outcomes, long requests) {
        StringBuilder json = new StringBuilder("{");
        outcomes.forEach((k, v) -> json.append(json.length() > 1 ? "," : "").append('"')
                .append(k.replace("\\", "\\\\").replace("\"", "\\\"")).append("\":").append(v));
        json.append('}');
        String status = interrupted ? "interrupted"
                : DrainReport.attemptedNone(outcomes) ? Drain.NOTHING_ATTEMPTED : "finished";
        try {
            jdbc.update(FINISH, new MapSqlParameterSource("finishedAt", OperatorSql.time(now()))
                    .addValue("status", status).addValue("outcomes", json.toString())
                    .addValue("requests", requests).addValue("runId", runId));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("drain run " + runId + " was not closed (its records are)", e);
        }
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
