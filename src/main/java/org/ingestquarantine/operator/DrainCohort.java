package org.ingestquarantine.operator;

import java.util.List;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.failure.ErrorClass;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcOperations;

/**
 * A drain's cohort: the open records of a {@link Drain.Request}'s fingerprint (and parser version, class, source),
 * counted, and its oldest {@code limit} records, first seen first, the selection a drain tries in that order and a
 * {@link DrainPlan} shows. The same statements inside a drain's starting transaction and outside any.
 */
final class DrainCohort {

    /** A record of the cohort's selection. */
    record Member(String dlqId, String source) {
    }

    private final Drain.Request request;
    private final String where;
    private final MapSqlParameterSource params;

    /** @param request a checked request ({@link Drain.Request#check}) */
    DrainCohort(Drain.Request request) {
        this.request = request;
        this.where = " WHERE disposition = 'open' AND error_fingerprint = :fingerprint"
                + (request.parserVersion() == null ? "" : " AND parser_version = :parserVersion")
                + (request.errorClass() == null ? "" : " AND error_class = :errorClass")
                + (request.source() == null ? "" : " AND source = :source");
        this.params = new MapSqlParameterSource("fingerprint", request.fingerprint().trim())
                .addValue("limit", request.limit());
        if (request.parserVersion() != null) {
            params.addValue("parserVersion", request.parserVersion());
        }
        if (request.errorClass() != null) {
            params.addValue("errorClass", ErrorClass.fromCode(request.errorClass()).code());
        }
        if (request.source() != null) {
            params.addValue("source", request.source());
        }
    }

    /**
     * Checks that the request selects something, outside any transaction.
     *
     * @return open records in the cohort now, at least 1
     * @throws BadOperatorInputException if the request is malformed or no open record matches
     * @throws DatabaseAccessException if the database fails
     */
    static int require(DataSource dataSource, Drain.Request request) {
        request.check();
        int cohort;
        try {
            cohort = new DrainCohort(request).count(OperatorSql.named(dataSource));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the cohort could not be read", e);
        }
        if (cohort == 0) {
            throw new DrainCohort(request).matchesNothing();
        }
        return cohort;
    }

    /** @return open records in the cohort now */
    int count(NamedParameterJdbcOperations jdbc) {
        return jdbc.query("SELECT count(*) FROM quarantine" + where, params, rs -> {
            rs.next();
            return rs.getInt(1);
        });
    }

    /** @return the oldest {@code limit} open records of the cohort, first seen first (ties by dlq_id) */
    List<Member> oldest(NamedParameterJdbcOperations jdbc) {
        return jdbc.query("SELECT dlq_id, source FROM quarantine" + where + " ORDER BY first_seen_at, dlq_id"
                + " LIMIT :limit", params, (rs, n) -> new Member(rs.getString(1).trim(), rs.getString(2)));
    }

    /** @return the refusal of a request whose cohort holds no open record */
    BadOperatorInputException matchesNothing() {
        return CohortSelection.of(request).matchesNothing();
    }
}
