package org.ingestquarantine.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.f4b6a3.ulid.UlidCreator;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlTime;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The actions trail ({@code operator_actions}, V25): a row when a bulk action starts ({@code running}), completed
 * when it ends with its count and outcome, or its refusal or error. Rows are never deleted. Every method throws
 * {@link DatabaseAccessException} when the database fails. Thread-safe.
 */
public final class ActionTrail {

    /** Trail entries listed when no limit is given. */
    public static final int DEFAULT_ACTIONS = 20;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BEGIN = OperatorSql.load("action-begin.sql");
    private static final String END = OperatorSql.load("action-end.sql");

    private final NamedParameterJdbcTemplate jdbc;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock the time of entries
     */
    public ActionTrail(DataSource dataSource, Clock clock) {
        this.jdbc = OperatorSql.named(dataSource);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * @param actor who acts
     * @param action what
     * @param selection on exactly which records
     * @param reasonCode a dispose's reason, or null
     * @param owner a dispose's owner, or null
     * @return the new entry's id, {@code running}
     */
    String begin(Actor actor, BulkAction action, CohortSelection selection, String reasonCode, String owner) {
        String id = UlidCreator.getMonotonicUlid().toString();
        write("the action did not start: its trail entry could not be written", BEGIN,
                new MapSqlParameterSource("actionId", id).addValue("action", action.code())
                        .addValue("actor", actor.name()).addValue("channel", actor.channel().code())
                        .addValue("startedAt", OperatorSql.time(now()))
                        .addValue("fingerprint", selection.fingerprint(), Types.VARCHAR)
                        .addValue("parserVersion", selection.parserVersion(), Types.VARCHAR)
                        .addValue("errorClass", selection.errorClass(), Types.VARCHAR)
                        .addValue("source", selection.source(), Types.VARCHAR)
                        .addValue("limit", selection.limit(), Types.INTEGER)
                        .addValue("reasonCode", trimmed(reasonCode), Types.VARCHAR)
                        .addValue("owner", trimmed(owner), Types.VARCHAR));
        return id;
    }

    /**
     * @param actionId an entry {@link #begin} made
     * @param outcome how it ended
     */
    void end(String actionId, ActionOutcome outcome) {
        write("the outcome of action " + actionId + " could not be written to the trail (its entry stays running)",
                END, new MapSqlParameterSource("finishedAt", OperatorSql.time(now()))
                        .addValue("status", outcome.status()).addValue("selected", outcome.selected(), Types.INTEGER)
                        .addValue("outcomes", json(outcome.outcomeCounts()), Types.VARCHAR)
                        .addValue("verdicts", json(outcome.verdictCounts()), Types.VARCHAR)
                        .addValue("error", outcome.error(), Types.VARCHAR)
                        .addValue("drainRunId", outcome.drainRunId(), Types.VARCHAR).addValue("actionId", actionId));
    }

    /**
     * @param limit at most this many entries, or null for {@value #DEFAULT_ACTIONS}
     * @return the latest entries, newest first
     * @throws BadOperatorInputException if the limit is below 1
     */
    public List<ActionEntry> latest(Integer limit) {
        int max = limit == null ? DEFAULT_ACTIONS : limit;
        if (max < 1) {
            throw new BadOperatorInputException(OperatorField.LIMIT, " must be at least 1, was " + max);
        }
        return read("SELECT * FROM operator_actions ORDER BY started_at DESC, action_id DESC LIMIT :limit",
                new MapSqlParameterSource("limit", max));
    }

    /**
     * @param actionId an entry's id
     * @return that entry
     * @throws IllegalStateException if there is none
     */
    ActionEntry find(String actionId) {
        return read("SELECT * FROM operator_actions WHERE action_id = :actionId",
                new MapSqlParameterSource("actionId", actionId)).stream().findFirst()
                .orElseThrow(() -> new IllegalStateException("no trail entry " + actionId));
    }

    private List<ActionEntry> read(String sql, MapSqlParameterSource args) {
        try {
            return jdbc.query(sql, args, (rs, n) -> entry(rs));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the actions trail could not be read", e);
        }
    }

    private static ActionEntry entry(ResultSet rs) throws SQLException {
        int limit = rs.getInt("limit_documents");
        Integer selection = rs.wasNull() ? null : limit;
        int selected = rs.getInt("selected");
        Integer took = rs.wasNull() ? null : selected;
        String run = rs.getString("drain_run_id");
        return new ActionEntry(rs.getString("action_id").trim(), rs.getString("action"), rs.getString("actor"),
                rs.getString("channel"), SqlTime.get(rs, "started_at"),
                SqlTime.get(rs, "finished_at"), new CohortSelection(
                        rs.getString("error_fingerprint"), rs.getString("parser_version"), rs.getString("error_class"),
                        rs.getString("source"), selection), rs.getString("reason_code"), rs.getString("owner"), took,
                rs.getString("status"), counts(rs.getString("outcome_counts")), counts(rs.getString("verdict_counts")),
                rs.getString("error"), run == null ? null : run.trim());
    }

    private void write(String what, String sql, MapSqlParameterSource args) {
        try {
            jdbc.update(sql, args);
        } catch (DataAccessException e) {
            throw OperatorSql.failure(what, e);
        }
    }

    private static Map<String, Long> counts(String json) {
        try {
            return new TreeMap<>(JSON.readValue(json, new TypeReference<Map<String, Long>>() { }));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("operator_actions holds counts that are not an object of numbers", e);
        }
    }

    private static String json(Map<String, Long> counts) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(counts));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("counts could not be written as JSON", e);
        }
    }

    private static String trimmed(String label) {
        return label == null ? null : label.trim();
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }
}
