package org.ingestquarantine.operator;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * The lists the operator page shows beside {@link OperatorService}'s answers: the open records of one cohort,
 * the unindexable register and the last drain runs. Reads only. Every method throws
 * {@link DatabaseAccessException} when the database cannot be read and {@link BadOperatorInputException} for
 * input that cannot be right. Thread-safe.
 */
public final class OperatorRegisters {

    /** Records of a cohort listed when no limit is given. */
    public static final int DEFAULT_RECORD_LIMIT = 100;

    /** Drain runs listed when no limit is given. */
    public static final int DEFAULT_DRAIN_RUNS = 10;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String UNINDEXABLE = OperatorSql.load("unindexable-register.sql");
    private static final String DRAIN_RUNS = OperatorSql.load("drain-runs-latest.sql");

    private final JdbcTemplate jdbc;

    /** @param dataSource a pool on the migrated schema */
    public OperatorRegisters(DataSource dataSource) {
        this.jdbc = OperatorSql.jdbc(dataSource);
    }

    /**
     * The open records of one cohort, oldest first seen first.
     *
     * @param fingerprint the cohort's error fingerprint; required
     * @param parserVersion its parser version, or null for every version
     * @param errorClass its class code, or null for every class
     * @param limit at most this many records, or null for {@value #DEFAULT_RECORD_LIMIT}
     * @return the records and how many were cut
     * @throws BadOperatorInputException if the fingerprint is missing, the class unknown or the limit below 1
     */
    public CohortRecords cohortRecords(String fingerprint, String parserVersion, String errorClass, Integer limit) {
        return cohortRecords(fingerprint, parserVersion, errorClass, null, limit);
    }

    /**
     * The open records of one cohort from one source (or every source), oldest first seen first.
     *
     * @param source only records of this source, or null for every source (check it with
     *     {@link OperatorService#requireKnownSource} first: an unknown one answers no record)
     * @see #cohortRecords(String, String, String, Integer)
     */
    public CohortRecords cohortRecords(String fingerprint, String parserVersion, String errorClass, String source,
                                       Integer limit) {
        if (fingerprint == null || fingerprint.isBlank()) {
            throw new BadOperatorInputException("name the cohort's fingerprint");
        }
        String classCode = errorClass == null ? null : classCode(errorClass);
        int max = limit == null ? DEFAULT_RECORD_LIMIT : limit;
        if (max < 1) {
            throw new BadOperatorInputException("limit must be at least 1, was " + max);
        }
        List<Object> args = new ArrayList<>(List.of(fingerprint));
        StringBuilder where = new StringBuilder("disposition = 'open' AND error_fingerprint = ?");
        if (parserVersion != null) {
            where.append(" AND parser_version = ?");
            args.add(parserVersion);
        }
        if (classCode != null) {
            where.append(" AND error_class = ?");
            args.add(classCode);
        }
        if (source != null) {
            where.append(" AND source = ?");
            args.add(source);
        }
        args.add(max);
        long[] total = {0};
        List<CohortRecord> rows = read("records of cohort", "SELECT dlq_id, source, doc_id, error_type, stage, attempts,"
                + " first_seen_at, last_seen_at, owner, count(*) OVER () AS total FROM quarantine WHERE " + where
                + " ORDER BY first_seen_at, dlq_id LIMIT ?", (rs, n) -> {
                    total[0] = rs.getLong("total");
                    return new CohortRecord(rs.getString("dlq_id"), rs.getString("source"), rs.getString("doc_id"),
                            rs.getString("error_type"), rs.getString("stage"), rs.getInt("attempts"),
                            SqlTime.get(rs, "first_seen_at"), SqlTime.get(rs, "last_seen_at"), rs.getString("owner"));
                }, args.toArray());
        return CohortRecords.of(fingerprint, parserVersion, classCode, source, total[0], total[0] - rows.size(),
                List.copyOf(rows));
    }

    /**
     * Every record of one fingerprint, whatever its disposition, oldest first seen first ({@code records}).
     *
     * @param fingerprint the error fingerprint; required
     * @param source only this source, or null for every source
     * @param limit at most this many records, or null for {@value #DEFAULT_RECORD_LIMIT}
     * @return the records and how many were cut
     * @throws BadOperatorInputException if the fingerprint is missing or the limit below 1
     */
    public FingerprintRecords fingerprintRecords(String fingerprint, String source, Integer limit) {
        if (fingerprint == null || fingerprint.isBlank()) {
            throw new BadOperatorInputException("name the cohort's fingerprint");
        }
        int max = limit == null ? DEFAULT_RECORD_LIMIT : limit;
        if (max < 1) {
            throw new BadOperatorInputException("limit must be at least 1, was " + max);
        }
        List<Object> args = new ArrayList<>(List.of(fingerprint.trim()));
        if (source != null) {
            args.add(source);
        }
        args.add(max);
        long[] total = {0};
        List<FingerprintRecord> rows = read("records of fingerprint", "SELECT dlq_id, source, doc_id, error_class,"
                + " reason_code, attempts, first_seen_at, last_seen_at, disposition, owner, count(*) OVER () AS total"
                + " FROM quarantine WHERE error_fingerprint = ?" + (source == null ? "" : " AND source = ?")
                + " ORDER BY first_seen_at, dlq_id LIMIT ?", (rs, n) -> {
                    total[0] = rs.getLong("total");
                    return new FingerprintRecord(rs.getString("dlq_id").trim(), rs.getString("source"),
                            rs.getString("doc_id"), rs.getString("error_class"), rs.getString("reason_code"),
                            rs.getInt("attempts"), SqlTime.get(rs, "first_seen_at"), SqlTime.get(rs, "last_seen_at"),
                            rs.getString("disposition"), rs.getString("owner"));
                }, args.toArray());
        return new FingerprintRecords(fingerprint.trim(), source, total[0], total[0] - rows.size(), List.copyOf(rows));
    }

    /**
     * @param record a record ({@link OperatorService#record})
     * @return the attempt journal's rows of its (source, doc_id), oldest first; empty when pruned or never written
     *     (records made by {@code ingest} have none)
     */
    public RecordJournal journal(RecordView record) {
        return new RecordJournal(record.dlqId(), record.source(), record.docId(), read("attempt journal",
                "SELECT attempt_id, delivery_key, delivery_count, started_at, stage, closed_at, outcome"
                        + " FROM attempt_journal WHERE source = ? AND doc_id = ? ORDER BY started_at, attempt_id",
                (rs, n) -> new JournalRow(rs.getLong("attempt_id"), rs.getString("delivery_key"), rs.getInt("delivery_count"),
                        SqlTime.get(rs, "started_at"), rs.getString("stage"), SqlTime.get(rs, "closed_at"),
                        rs.getString("outcome")), record.source(), record.docId()));
    }

    /**
     * @return the unindexable register: records closed as unindexable, by source, fingerprint, parser version,
     *     class, reason and owner, most documents first
     */
    public List<UnindexableCohort> unindexable() {
        return read("unindexable register", UNINDEXABLE, (rs, n) -> new UnindexableCohort(rs.getString(1),
                rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5), rs.getString(6), rs.getLong(7),
                SqlTime.get(rs, "since"), SqlTime.get(rs, "disposed_at")));
    }

    /**
     * @param limit at most this many runs, or null for {@value #DEFAULT_DRAIN_RUNS}
     * @return the latest drain runs, newest first
     * @throws BadOperatorInputException if the limit is below 1
     */
    public List<DrainRunRow> drainRuns(Integer limit) {
        int max = limit == null ? DEFAULT_DRAIN_RUNS : limit;
        if (max < 1) {
            throw new BadOperatorInputException("limit must be at least 1, was " + max);
        }
        return read("drain runs", DRAIN_RUNS,
                (rs, n) -> new DrainRunRow(rs.getString("run_id").trim(), rs.getString("started_by"),
                        SqlTime.get(rs, "started_at"), SqlTime.get(rs, "finished_at"), rs.getString("status"),
                        rs.getString("error_fingerprint"), rs.getString("parser_version"), rs.getString("error_class"),
                        rs.getLong("cohort_documents"), rs.getLong("selected"), rs.getDouble("rate_per_s"),
                        rs.getLong("source_requests"), outcomes(rs.getString("outcomes"))), max);
    }

    private static Map<String, Long> outcomes(String json) {
        try {
            return new TreeMap<>(JSON.readValue(json, new TypeReference<Map<String, Long>>() { }));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("drain_runs.outcome_counts is not an object of counts", e);
        }
    }

    private static String classCode(String errorClass) {
        try {
            return ErrorClass.fromCode(errorClass).code();
        } catch (IllegalArgumentException e) {
            throw new BadOperatorInputException("unknown error class '" + RecordRef.bounded(errorClass) + "'");
        }
    }

    private <T> List<T> read(String what, String sql, RowMapper<T> mapper, Object... args) {
        try {
            return jdbc.query(sql, mapper, args);
        } catch (DataAccessException e) {
            throw OperatorSql.failure(what + " could not be read", e);
        }
    }
}
