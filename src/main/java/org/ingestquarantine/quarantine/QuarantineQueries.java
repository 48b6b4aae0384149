package org.ingestquarantine.quarantine;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.failure.ErrorClass;

/**
 * Read model over {@code quarantine}, {@code quarantine_attempt} and {@code documents} for the run summary,
 * the operator CLI/HTTP and the gauges. Every list is complete (no LIMIT) and sorted as stated.
 * Every method throws {@link DatabaseAccessException} if the database cannot be read. Thread-safe.
 */
public final class QuarantineQueries implements org.ingestquarantine.metrics.CoverageReadings {

    private final DataSource dataSource;
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
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.skippedCoverage = Objects.requireNonNull(skippedCoverage, "skippedCoverage");
    }

    /**
     * @param source connector name
     * @return open records per (error class, reason code), most documents first
     */
    public List<OpenCount> openCounts(String source) {
        String sql = """
                SELECT error_class, reason_code, count(*) AS documents FROM quarantine
                WHERE source = ? AND disposition = 'open'
                GROUP BY error_class, reason_code ORDER BY documents DESC, error_class, reason_code
                """;
        return query(sql, source, rs -> new OpenCount(ErrorClass.fromCode(rs.getString(1)), rs.getString(2),
                rs.getLong(3)));
    }

    /**
     * @param source connector name
     * @return every distinct error fingerprint ever recorded for the source (from the attempt history, so
     *         fingerprints since replaced by a later failure are included), sorted
     */
    public List<String> fingerprints(String source) {
        String sql = """
                SELECT DISTINCT a.error_fingerprint FROM quarantine_attempt a JOIN quarantine q ON q.dlq_id = a.dlq_id
                WHERE q.source = ? AND a.error_fingerprint IS NOT NULL ORDER BY 1
                """;
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
        String sql = """
                WITH q AS (
                    SELECT source, sum(documents) FILTER (WHERE disposition = 'open') AS open_n,
                           sum(documents) FILTER (WHERE disposition = 'unindexable') AS unindexable_n,
                           sum(documents) FILTER (WHERE disposition = 'erased') AS erased_n,
                           min(first_seen_min) FILTER (WHERE disposition = 'open') AS oldest_open
                    FROM quarantine_summary GROUP BY source
                ), erased_indexed AS (
                    -- erased records whose document was indexed again after the erasure (index quarantine_erased)
                    SELECT e.source, count(*) AS n FROM quarantine e
                    WHERE e.disposition = 'erased' AND EXISTS (SELECT 1 FROM documents d
                        WHERE d.source = e.source AND d.doc_id = e.doc_id AND d.state = 'searchable')
                    GROUP BY e.source
                ), skipped AS (
                    %s
                ), sources AS (
                    SELECT unnest(?::text[]) AS source
                    UNION SELECT source FROM source_totals
                    UNION SELECT source FROM source_summary WHERE indexed > 0
                    UNION SELECT source FROM q
                    UNION SELECT source FROM skipped
                )
                SELECT s.source, t.documents AS total, t.obtained_by, t.counted_at, COALESCE(i.indexed, 0) AS indexed,
                       COALESCE(q.open_n, 0) - COALESCE(i.open_indexed, 0) AS open_n,
                       COALESCE(q.unindexable_n, 0) - COALESCE(i.unindexable_indexed, 0) AS unindexable_n,
                       COALESCE(q.erased_n, 0) - COALESCE(ei.n, 0) AS erased_n, q.oldest_open,
                       COALESCE(k.skipped_n, 0) AS skipped_n
                FROM sources s LEFT JOIN source_totals t ON t.source = s.source
                    LEFT JOIN source_summary i ON i.source = s.source LEFT JOIN q ON q.source = s.source
                    LEFT JOIN erased_indexed ei ON ei.source = s.source LEFT JOIN skipped k ON k.source = s.source
                ORDER BY s.source
                """.formatted(org.ingestquarantine.metrics.SkippedCoverage.skippedPerSourceSql());
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setArray(1, c.createArrayOf("text", knownSources.toArray()));
            List<SourceCoverage> result = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
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
                }
            }
            return result;
        } catch (SQLException e) {
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
        String sql = """
                SELECT source, sum(attempts) AS records, count(*) AS documents,
                       count(*) FILTER (WHERE disposition = 'open') AS open,
                       min(first_seen_at) AS oldest, max(last_seen_at) AS newest
                FROM quarantine GROUP BY source ORDER BY source
                """;
        return query(sql, null, rs -> new SourceStats(rs.getString("source"), rs.getLong("records"),
                rs.getLong("documents"), rs.getLong("open"), SqlTime.get(rs, "oldest"), SqlTime.get(rs, "newest")));
    }

    /**
     * @return open records grouped by (parser_version, error_class, error_fingerprint), all sources, most
     *         documents first; every cohort, no limit
     */
    public List<Cohort> cohorts() {
        String sql = """
                SELECT parser_version, error_class, error_fingerprint, count(*) AS documents,
                       min(first_seen_at) AS since, max(last_seen_at) AS last_seen
                FROM quarantine WHERE disposition = 'open'
                GROUP BY parser_version, error_class, error_fingerprint
                ORDER BY documents DESC, since, parser_version, error_class, error_fingerprint
                """;
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
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            SqlTime.set(s, 1, firstSeenBefore);
            List<QuarantineRecord> result = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    result.add(new QuarantineRecord(rs));
                }
            }
            return result;
        } catch (SQLException e) {
            throw failure("overdue records", e);
        }
    }

    private interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> List<T> query(String sql, String source, Row<T> row) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            if (source != null) {
                s.setString(1, source);
            }
            List<T> result = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    result.add(row.read(rs));
                }
            }
            return result;
        } catch (SQLException e) {
            throw failure("quarantine query", e);
        }
    }

    private static DatabaseAccessException failure(String what, SQLException e) {
        return new DatabaseAccessException(what + " could not be read (" + SqlFailure.describe(e)
                + "); retry when PostgreSQL answers again", e);
    }
}
