package org.ingestquarantine.bench;

import java.io.PrintStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.ErrorFingerprint;

/**
 * The operator's questions ({@code stats}, {@code cohorts}, {@code coverage}, {@code overdue}) as plain
 * {@code GROUP BY} queries over {@code quarantine} and {@code documents}, with no summary table, and the covering or
 * partial indexes they need: what issue 25 item 1 measures against today's summary tables (operator-bench). Each
 * query returns the same rows its summary twin does (same groups, same figures); the Java mapping is left out, the
 * rows are read and dropped.
 */
final class PlainQueries {

    /** The indexes the plain queries read (index-only scans where the visibility map allows). */
    static final List<String> INDEXES = List.of(
            // stats: every record by (source, disposition) with what it sums
            "CREATE INDEX IF NOT EXISTS plain_stats ON quarantine (source, disposition) INCLUDE (attempts, first_seen_at)",
            // cohorts: the open records by group, the example's order and what it sums
            "CREATE INDEX IF NOT EXISTS plain_open_cohort ON quarantine (parser_version, error_class,"
                    + " error_fingerprint, source, owner, first_seen_at) INCLUDE (attempts, last_seen_at)"
                    + " WHERE disposition = 'open'",
            // overdue: the open records by first seen, with their group
            "CREATE INDEX IF NOT EXISTS plain_open_first_seen ON quarantine (first_seen_at)"
                    + " INCLUDE (owner, source, error_class, error_fingerprint) WHERE disposition = 'open'",
            // coverage: the records that count against coverage, by document (the join with documents)
            "CREATE INDEX IF NOT EXISTS plain_not_searchable ON quarantine (source, doc_id) INCLUDE (disposition,"
                    + " first_seen_at) WHERE disposition IN ('open', 'unindexable', 'erased')",
            // coverage: the searchable documents per source
            "CREATE INDEX IF NOT EXISTS plain_searchable ON documents (source, doc_id) WHERE state = 'searchable'");

    static final String STATS = """
            SELECT source, disposition, sum(attempts) AS records, count(*) AS documents,
                   min(first_seen_at) AS oldest, max(first_seen_at) AS newest
            FROM quarantine %s GROUP BY source, disposition ORDER BY source
            """;

    static final String COHORTS = """
            WITH g AS (
                SELECT source, COALESCE(parser_version, '') AS parser_version, error_class,
                       COALESCE(error_fingerprint, '') AS error_fingerprint, COALESCE(owner, '') AS owner,
                       count(*) AS documents, sum(attempts) AS attempts, min(first_seen_at) AS first_seen_min,
                       max(last_seen_at) AS last_seen_max,
                       count(*) FILTER (WHERE COALESCE(fingerprint_version, 0) < %2$d) AS older,
                       min(COALESCE(fingerprint_version, 0)) AS oldest
                FROM quarantine WHERE disposition = 'open' %1$s
                GROUP BY parser_version, error_class, error_fingerprint, source, owner
            ), c AS (
                SELECT parser_version, error_class, error_fingerprint, sum(documents) AS documents,
                       sum(attempts) AS attempts, min(first_seen_min) AS since, max(last_seen_max) AS last_seen,
                       (array_agg(source ORDER BY first_seen_min))[1] AS example_source,
                       (array_agg(owner ORDER BY first_seen_min))[1] AS example_owner,
                       array_agg(DISTINCT owner ORDER BY owner) AS owners, sum(older) AS older, min(oldest) AS oldest
                FROM g GROUP BY parser_version, error_class, error_fingerprint
            )
            SELECT NULLIF(c.parser_version, '') AS parser_version, c.error_class,
                   NULLIF(c.error_fingerprint, '') AS error_fingerprint, c.documents, c.attempts, c.since,
                   c.last_seen, e.dlq_id AS example, e.error_type, e.error_message, c.owners, c.oldest, c.older
            FROM c LEFT JOIN LATERAL (
                SELECT q.dlq_id, q.error_type, q.error_message FROM quarantine q
                WHERE q.source = c.example_source AND COALESCE(q.parser_version, '') = c.parser_version
                  AND q.error_class = c.error_class AND COALESCE(q.error_fingerprint, '') = c.error_fingerprint
                  AND q.disposition = 'open' AND COALESCE(q.owner, '') = c.example_owner
                ORDER BY q.first_seen_at LIMIT 1) e ON true
            ORDER BY c.documents DESC, c.since, c.parser_version, c.error_class, c.error_fingerprint
            """;

    /** Coverage's figures per source; skipped_documents and source_totals are read as today. */
    static final String COVERAGE = """
            WITH q AS (
                SELECT r.source, count(*) FILTER (WHERE r.disposition = 'open') AS open_n,
                       count(*) FILTER (WHERE r.disposition = 'unindexable') AS unindexable_n,
                       count(*) FILTER (WHERE r.disposition = 'erased') AS erased_n,
                       min(r.first_seen_at) FILTER (WHERE r.disposition = 'open') AS oldest_open,
                       count(*) FILTER (WHERE d.doc_id IS NOT NULL) AS searchable_n
                FROM quarantine r LEFT JOIN documents d ON d.source = r.source AND d.doc_id = r.doc_id
                    AND d.state = 'searchable'
                WHERE r.disposition IN ('open', 'unindexable', 'erased') GROUP BY r.source
            ), i AS (
                SELECT source, count(*) AS indexed FROM documents WHERE state = 'searchable' GROUP BY source
            ), sources AS (
                SELECT source FROM source_totals UNION SELECT source FROM i UNION SELECT source FROM q
            )
            SELECT s.source, t.documents AS total, COALESCE(i.indexed, 0) AS indexed,
                   COALESCE(q.open_n + q.unindexable_n + q.erased_n - q.searchable_n, 0) AS not_searchable,
                   q.oldest_open
            FROM sources s LEFT JOIN source_totals t ON t.source = s.source LEFT JOIN i ON i.source = s.source
                LEFT JOIN q ON q.source = s.source
            ORDER BY s.source
            """;

    static final String OVERDUE = """
            SELECT owner, source, error_class, error_fingerprint, count(*) AS documents, min(first_seen_at) AS oldest
            FROM quarantine WHERE disposition = 'open' AND first_seen_at < ?
            GROUP BY owner, source, error_class, error_fingerprint
            ORDER BY owner NULLS LAST, documents DESC, source, error_class, error_fingerprint
            """;

    private final Database db;

    PlainQueries(Database db) {
        this.db = db;
    }

    /**
     * Creates the indexes on a connection of its own, without the pool's socket timeout: at ten times the seed
     * scale the partial index over 14 million documents takes longer than that.
     */
    static void createIndexes(EmbeddedPostgresService pg) throws SQLException {
        try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
             Statement s = c.createStatement()) {
            for (String index : INDEXES) {
                s.execute(index);
            }
            s.execute("VACUUM ANALYZE quarantine, documents");   // index-only scans need the visibility map
        }
    }

    /**
     * Deletes the write cells' records (sources {@code bench-*}) and their attempts, so that the plain queries are timed on the seed set alone, as the summary queries were (before the write cells).
     * Runs with the summary triggers disabled: the summaries are stale by then anyway.
     */
    static void dropBenchRecords(Database db) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DELETE FROM quarantine_attempt a USING quarantine q WHERE q.dlq_id = a.dlq_id"
                    + " AND q.source LIKE 'bench-%'");
            s.execute("DELETE FROM quarantine WHERE source LIKE 'bench-%'");
            s.execute("VACUUM ANALYZE quarantine, quarantine_attempt, documents");
        }
    }

    /** The four statement triggers on quarantine (documents' triggers stay: no write cell touches documents). */
    static void disableSummaryTriggers(Database db) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            for (String t : List.of("insert", "update", "delete", "truncate")) {
                s.execute("ALTER TABLE quarantine DISABLE TRIGGER quarantine_summary_" + t);
            }
        }
    }

    void stats(String source) {
        run(STATS.formatted(source == null ? "" : "WHERE source = ?"), source);
    }

    void cohorts(String source, String errorClass) {
        if (source != null) {
            throw new IllegalArgumentException("not timed");
        }
        run(COHORTS.formatted(errorClass == null ? "" : "AND error_class = ?", ErrorFingerprint.VERSION), errorClass);
    }

    void coverage() {
        run(COVERAGE, null);
    }

    void overdue(Duration age) {
        run(OVERDUE, Timestamp.from(Instant.now().minus(age)));
    }

    /** EXPLAIN (ANALYZE, BUFFERS) of each plain query, once, for the note. */
    void explain(PrintStream out) {
        explain(out, "stats", STATS.formatted(""), null);
        explain(out, "cohorts", COHORTS.formatted("", ErrorFingerprint.VERSION), null);
        explain(out, "coverage", COVERAGE, null);
        explain(out, "overdue 90d", OVERDUE, Timestamp.from(Instant.now().minus(Duration.ofDays(90))));
    }

    private void explain(PrintStream out, String name, String sql, Object parameter) {
        out.println("  EXPLAIN ANALYZE " + name + ":");
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement s = c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS) " + sql)) {
            if (parameter != null) {
                s.setObject(1, parameter);
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    out.println("    " + rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private void run(String sql, Object parameter) {
        try (Connection c = db.dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            if (parameter != null) {
                s.setObject(1, parameter);
            }
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rs.getObject(1);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
