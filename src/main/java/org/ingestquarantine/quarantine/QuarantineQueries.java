package org.ingestquarantine.quarantine;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Read model over {@code quarantine}, {@code quarantine_attempt} and {@code documents} for the run summary,
 * the operator CLI/HTTP and the gauges. Every list is complete (no LIMIT) and sorted as stated.
 * Every method throws {@link DatabaseAccessException} if the database cannot be read. Thread-safe.
 */
public final class QuarantineQueries implements org.ingestquarantine.metrics.CoverageReadings {

    private static final String OPEN_COUNTS_SQL = SpringJdbc.sql(QuarantineQueries.class, "open-counts.sql");
    private static final String FINGERPRINTS_SQL = SpringJdbc.sql(QuarantineQueries.class, "fingerprints.sql");
    private static final String COVERAGE_SQL = SpringJdbc.sql(QuarantineQueries.class, "coverage.sql").formatted(org.ingestquarantine.metrics.SkippedCoverage.skippedPerSourceSql());
    private static final String STATS_SQL = SpringJdbc.sql(QuarantineQueries.class, "stats.sql");
    private static final String COHORTS_SQL = SpringJdbc.sql(QuarantineQueries.class, "cohorts.sql");

    private final JdbcTemplate jdbc;
    private final org.ingestquarantine.metrics.SkippedCoverage skippedCoverage;

    /** @param dataSource a pool on the migrated schema; coverage excludes documents skipped by policy */
    public QuarantineQueries(DataSource dataSource) {
        this(dataSource, org.ingestquarantine.metrics.SkippedCoverage.EXCLUDED);
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param skippedCoverage how {@link #coverage} counts documents skipped by policy
     */
    public QuarantineQueries(DataSource dataSource, org.ingestquarantine.metrics.SkippedCoverage skippedCoverage) {
        this.jdbc = SpringJdbc.template(Objects.requireNonNull(dataSource, "dataSource"));
        this.skippedCoverage = Objects.requireNonNull(skippedCoverage, "skippedCoverage");
    }

    /**
     * @param source connector name
     * @return open records per (error class, reason code), most documents first
     */
    public List<OpenCount> openCounts(String source) {
        String sql = OPEN_COUNTS_SQL;
        return query(sql, source, rs -> new OpenCount(ErrorClass.fromCode(rs.getString(1)), rs.getString(2),
                rs.getLong(3)));
    }

    /**
     * @param source connector name
     * @return every distinct error fingerprint ever recorded for the source (from the attempt history, so
     *         fingerprints since replaced by a later failure are included), sorted
     */
    public List<String> fingerprints(String source) {
        String sql = FINGERPRINTS_SQL;
        return query(sql, source, rs -> rs.getString(1));
    }

    /**
     * Coverage per source: the one query behind {@code coverage}, the API, the page, the {@code coverage_ratio}
     * gauge and the {@code ingest} summary. Reads the summary tables ({@code quarantine_summary},
     * {@code source_summary}) and {@code source_totals}. Lists every source with a known total, indexed documents,
     * records or skipped documents, plus every source in {@code knownSources} (a configured source with nothing yet
     * appears with zeros).
     *
     * @param knownSources connector names to list even without rows, may be empty
     * @return one row per source, sorted by source
     */
    public List<SourceCoverage> coverage(Collection<String> knownSources) {
        String sql = COVERAGE_SQL;
        try {
            List<SourceCoverage> result = new ArrayList<>();
            jdbc.query(sql, ps -> ps.setArray(1, ps.getConnection().createArrayOf("text", knownSources.toArray())),
                    rs -> {
                        Long total = rs.getObject("total", Long.class);
                        long indexed = rs.getLong("indexed");
                        long open = rs.getLong("open_n");
                        long unindexable = rs.getLong("unindexable_n");
                        long erased = rs.getLong("erased_n");
                        long notSearchable = open + unindexable + erased;
                        long skipped = rs.getLong("skipped_n");
                        result.add(new SourceCoverage(rs.getString("source"), total, rs.getString("obtained_by"),
                                SqlTime.get(rs, "counted_at"), indexed, open, unindexable, erased, skipped,
                                skippedCoverage.unseen(total, indexed, notSearchable, skipped),
                                skippedCoverage.documents(total, indexed, notSearchable, skipped),
                                skippedCoverage.ratio(total, indexed, notSearchable, skipped), SqlTime.get(rs, "oldest_open")));
                    });
            return result;
        } catch (DataAccessException e) {
            throw failure("coverage", e);
        }
    }

    /** @return source → coverage of every source {@link #coverage} gives a figure, for the gauge */
    @Override
    public java.util.Map<String, Double> coverageRatios() {
        java.util.Map<String, Double> ratios = new java.util.TreeMap<>();
        for (SourceCoverage c : coverage(List.of())) {
            if (c.coverage() != null) {
                ratios.put(c.source(), c.coverage());
            }
        }
        return ratios;
    }

    /** @return how {@link #coverage} counts documents skipped by policy */
    public org.ingestquarantine.metrics.SkippedCoverage skippedCoverage() {
        return skippedCoverage;
    }

    /** @return quarantine volume per source (records vs distinct documents, oldest, newest), sorted by source */
    public List<SourceStats> stats() {
        String sql = STATS_SQL;
        return query(sql, null, rs -> new SourceStats(rs.getString("source"), rs.getLong("records"),
                rs.getLong("documents"), rs.getLong("open"), SqlTime.get(rs, "oldest"), SqlTime.get(rs, "newest")));
    }

    /**
     * @return open records grouped by (parser_version, error_class, error_fingerprint), all sources, most
     *         documents first; every cohort, no limit
     */
    public List<Cohort> cohorts() {
        String sql = COHORTS_SQL;
        return query(sql, null, rs -> new Cohort(rs.getString(1), ErrorClass.fromCode(rs.getString(2)),
                rs.getString(3), rs.getLong(4), SqlTime.get(rs, "since"), SqlTime.get(rs, "last_seen")));
    }

    /**
     * @param firstSeenBefore e.g. now minus 90 days
     * @return open records first seen before the instant, oldest first: they need a disposition
     */
    public List<QuarantineRecord> overdue(Instant firstSeenBefore) {
        String sql = "SELECT * FROM quarantine WHERE disposition = 'open' AND first_seen_at < ?"
                + " ORDER BY first_seen_at, dlq_id";
        try {
            return jdbc.query(sql, (rs, n) -> new QuarantineRecord(rs), SpringJdbc.time(firstSeenBefore));
        } catch (DataAccessException e) {
            throw failure("overdue records", e);
        }
    }

    private interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> List<T> query(String sql, String source, Row<T> row) {
        try {
            return source == null ? jdbc.query(sql, (rs, n) -> row.read(rs))
                    : jdbc.query(sql, (rs, n) -> row.read(rs), source);
        } catch (DataAccessException e) {
            throw failure("quarantine query", e);
        }
    }

    private static DatabaseAccessException failure(String what, DataAccessException e) {
        SQLException cause = SpringJdbc.cause(e);
        return new DatabaseAccessException(what + " could not be read (" + SqlFailure.describe(cause)
                + "); retry when PostgreSQL answers again", cause);
    }
}
