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
public final class QuarantineQueries {

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
     * Coverage per source. Lists every source that has indexed documents or quarantine records, plus every
     * source in {@code knownSources} (so a configured source with nothing yet still appears, with null
     * coverage). A source without quarantine records is still listed (no inner join).
     *
     * @param knownSources configured connector names, may be empty
     * @return one row per source, sorted by source
     */
    public List<SourceCoverage> coverage(Collection<String> knownSources) {
        String sql = """
                WITH sources AS (
                    SELECT unnest(?::text[]) AS source
                    UNION SELECT source FROM documents
                    UNION SELECT source FROM quarantine
                    UNION SELECT source FROM skipped_documents
                ), skipped AS (
                    %s
                ), indexed AS (
                    SELECT source, count(*) AS n FROM documents WHERE state = 'searchable' GROUP BY source
                ), quarantined AS (
                    SELECT q.source,
                           count(*) FILTER (WHERE q.disposition = 'open' AND NOT EXISTS (
                               SELECT 1 FROM documents d WHERE d.source = q.source AND d.doc_id = q.doc_id
                                   AND d.state = 'searchable')) AS open_n,
                           count(*) FILTER (WHERE q.disposition = 'unindexable') AS unindexable_n,
                           count(*) FILTER (WHERE q.disposition = 'erased' AND NOT EXISTS (
                               SELECT 1 FROM documents d WHERE d.source = q.source AND d.doc_id = q.doc_id
                                   AND d.state = 'searchable')) AS erased_n,
                           min(q.first_seen_at) FILTER (WHERE q.disposition = 'open') AS oldest_open
                    FROM quarantine q GROUP BY q.source
                )
                SELECT s.source, COALESCE(i.n, 0), COALESCE(q.open_n, 0), COALESCE(q.unindexable_n, 0),
                       COALESCE(q.erased_n, 0), q.oldest_open, COALESCE(k.skipped_n, 0)
                FROM sources s LEFT JOIN indexed i ON i.source = s.source LEFT JOIN quarantined q ON q.source = s.source
                    LEFT JOIN skipped k ON k.source = s.source
                ORDER BY s.source
                """.formatted(org.ingestquarantine.metrics.SkippedCoverage.skippedPerSourceSql());
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setArray(1, c.createArrayOf("text", knownSources.toArray()));
            List<SourceCoverage> result = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    long indexed = rs.getLong(2);
                    long open = rs.getLong(3);
                    long unindexable = rs.getLong(4);
                    long erased = rs.getLong(5);
                    // no known total here: the documents seen are the denominator, skipped ones as configured
                    Double coverage = skippedCoverage.ratio(0L, indexed, open + unindexable + erased, rs.getLong(7));
                    result.add(new SourceCoverage(rs.getString(1), indexed, open, unindexable, erased, coverage,
                            SqlTime.get(rs, "oldest_open")));
                }
            }
            return result;
        } catch (SQLException e) {
            throw failure("coverage", e);
        }
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
