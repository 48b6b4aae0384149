package org.ingestquarantine.operator;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.quarantine.Disposition;

/**
 * The operator's aggregate questions in SQL, over {@code quarantine}, {@code documents} and
 * {@code source_totals}. Each is one or two statements that PostgreSQL answers from the indexes of
 * {@code V4__operator.sql}; no list is cut silently. Every method throws {@link DatabaseAccessException} when
 * the database cannot be read. Thread-safe.
 */
final class OperatorQueries {

    /** Longest example error message shown per cohort, in characters. */
    static final int EXAMPLE_MESSAGE_CHARS = 100;

    private final DataSource dataSource;

    OperatorQueries(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    StatsReport stats(String source) {
        String sql = "SELECT source, disposition, sum(attempts) AS records, count(*) AS documents,"
                + " min(first_seen_at) AS oldest, max(first_seen_at) AS newest FROM quarantine"
                + (source == null ? "" : " WHERE source = ?") + " GROUP BY source, disposition ORDER BY source";
        Map<String, List<Object[]>> bySource = new TreeMap<>();
        read("quarantine statistics", sql, s -> {
            if (source != null) {
                s.setString(1, source);
            }
        }, rs -> bySource.computeIfAbsent(rs.getString("source"), k -> new ArrayList<>()).add(new Object[] {
                rs.getString("disposition"), rs.getLong("records"), rs.getLong("documents"),
                SqlTime.get(rs, "oldest"), SqlTime.get(rs, "newest")}));
        List<SourceQuarantineStats> rows = new ArrayList<>();
        List<Object[]> all = new ArrayList<>();
        bySource.forEach((name, parts) -> {
            rows.add(combine(name, parts));
            all.addAll(parts);
        });
        return new StatsReport(rows, combine("*", all));
    }

    private static SourceQuarantineStats combine(String source, List<Object[]> parts) {
        Map<String, Long> byDisposition = new LinkedHashMap<>();
        for (Disposition d : Disposition.values()) {
            byDisposition.put(d.code(), 0L);
        }
        long records = 0;
        long documents = 0;
        Instant oldest = null;
        Instant newest = null;
        for (Object[] p : parts) {
            byDisposition.merge((String) p[0], (Long) p[2], Long::sum);
            records += (Long) p[1];
            documents += (Long) p[2];
            oldest = oldest == null || ((Instant) p[3]).isBefore(oldest) ? (Instant) p[3] : oldest;
            newest = newest == null || ((Instant) p[4]).isAfter(newest) ? (Instant) p[4] : newest;
        }
        return new SourceQuarantineStats(source, records, documents, oldest, newest, byDisposition);
    }

    List<CohortRow> cohorts(String source, String errorClass, String runningParser) {
        String sql = "SELECT parser_version, error_class, error_fingerprint, count(*) AS documents,"
                + " sum(attempts) AS attempts, min(first_seen_at) AS since, max(last_seen_at) AS last_seen,"
                + " min(dlq_id) AS example FROM quarantine WHERE disposition = 'open'"
                + (source == null ? "" : " AND source = ?") + (errorClass == null ? "" : " AND error_class = ?")
                + " GROUP BY parser_version, error_class, error_fingerprint"
                + " ORDER BY documents DESC, since, parser_version, error_class, error_fingerprint";
        List<Object[]> groups = new ArrayList<>();
        read("cohorts", sql, s -> {
            int i = 1;
            if (source != null) {
                s.setString(i++, source);
            }
            if (errorClass != null) {
                s.setString(i, errorClass);
            }
        }, rs -> groups.add(new Object[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4),
                rs.getLong(5), SqlTime.get(rs, "since"), SqlTime.get(rs, "last_seen"), rs.getString("example")}));
        Map<String, String[]> examples = new HashMap<>();
        if (!groups.isEmpty()) {
            read("cohort examples", "SELECT dlq_id, error_type, error_message FROM quarantine WHERE dlq_id = ANY (?)",
                    s -> s.setArray(1, s.getConnection().createArrayOf("bpchar",
                            groups.stream().map(g -> g[7]).toArray())),
                    rs -> examples.put(rs.getString(1), new String[] {rs.getString(2), firstLine(rs.getString(3))}));
        }
        List<CohortRow> rows = new ArrayList<>(groups.size());
        for (Object[] g : groups) {
            String[] example = examples.getOrDefault((String) g[7], new String[2]);
            rows.add(new CohortRow((String) g[0], !runningParser.equals(g[0]), (String) g[1], (String) g[2],
                    (Long) g[3], (Long) g[4], (Instant) g[5], (Instant) g[6], (String) g[7], example[0], example[1]));
        }
        return rows;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return null;
        }
        String line = message.lines().findFirst().orElse("").replaceAll("\\p{Cntrl}", " ");
        return line.length() <= EXAMPLE_MESSAGE_CHARS ? line : line.substring(0, EXAMPLE_MESSAGE_CHARS - 3) + "...";
    }

    List<CoverageRow> coverage(Instant now) {
        String sql = """
                WITH sources AS (
                    SELECT source FROM source_totals
                    UNION SELECT source FROM documents
                    UNION SELECT source FROM quarantine
                ), indexed AS (
                    SELECT source, count(*) AS n FROM documents WHERE state = 'searchable' GROUP BY source
                ), quarantined AS (
                    SELECT q.source,
                           count(*) FILTER (WHERE q.disposition = 'open') AS open_n,
                           count(*) FILTER (WHERE q.disposition = 'unindexable') AS unindexable_n,
                           min(q.first_seen_at) FILTER (WHERE q.disposition = 'open') AS oldest_open
                    FROM quarantine q WHERE q.disposition IN ('open', 'unindexable') AND NOT EXISTS (
                        SELECT 1 FROM documents d WHERE d.source = q.source AND d.doc_id = q.doc_id
                            AND d.state = 'searchable')
                    GROUP BY q.source
                )
                SELECT s.source, t.documents AS total, COALESCE(i.n, 0) AS indexed, COALESCE(q.open_n, 0) AS open_n,
                       COALESCE(q.unindexable_n, 0) AS unindexable_n, q.oldest_open
                FROM sources s LEFT JOIN source_totals t ON t.source = s.source
                    LEFT JOIN indexed i ON i.source = s.source LEFT JOIN quarantined q ON q.source = s.source
                ORDER BY s.source
                """;
        List<CoverageRow> rows = new ArrayList<>();
        read("coverage", sql, s -> { }, rs -> {
            Long total = rs.getObject("total", Long.class);
            long indexed = rs.getLong("indexed");
            long open = rs.getLong("open_n");
            long unindexable = rs.getLong("unindexable_n");
            long denominator = indexed + open + unindexable;
            Double coverage = total == null || denominator == 0 ? null : (double) indexed / denominator;
            Instant oldest = SqlTime.get(rs, "oldest_open");
            rows.add(new CoverageRow(rs.getString("source"), total, indexed, open, unindexable, coverage, oldest,
                    oldest == null ? null : Duration.between(oldest, now)));
        });
        return rows;
    }

    /** @return open records first seen before the cut-off by (owner, source, class, fingerprint) */
    List<Object[]> overdue(Instant firstSeenBefore) {
        String sql = "SELECT owner, source, error_class, error_fingerprint, count(*) AS documents,"
                + " min(first_seen_at) AS oldest FROM quarantine WHERE disposition = 'open' AND first_seen_at < ?"
                + " GROUP BY owner, source, error_class, error_fingerprint"
                + " ORDER BY owner NULLS LAST, documents DESC, source, error_class, error_fingerprint";
        List<Object[]> rows = new ArrayList<>();
        read("overdue records", sql, s -> SqlTime.set(s, 1, firstSeenBefore), rs -> rows.add(new Object[] {
                rs.getString(1), new OverdueCohort(rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                SqlTime.get(rs, "oldest"))}));
        return rows;
    }

    /** @return sources that have records without an owner */
    List<String> sourcesWithoutOwner() {
        List<String> sources = new ArrayList<>();
        read("sources without owner", "SELECT DISTINCT source FROM quarantine WHERE owner IS NULL ORDER BY source",
                s -> { }, rs -> sources.add(rs.getString(1)));
        return sources;
    }

    /**
     * Writes the configured owner on every record of the source that names none.
     *
     * @return records changed
     */
    int assignOwner(String source, String owner) {
        String sql = "UPDATE quarantine SET owner = ? WHERE source = ? AND owner IS NULL";
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, owner);
            s.setString(2, source);
            return s.executeUpdate();
        } catch (SQLException e) {
            throw new DatabaseAccessException("owner of source " + source + " was not written ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    interface Binder {
        void bind(PreparedStatement s) throws SQLException;
    }

    interface RowReader {
        void read(ResultSet rs) throws SQLException;
    }

    void read(String what, String sql, Binder binder, RowReader reader) {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            binder.bind(s);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    reader.read(rs);
                }
            }
        } catch (SQLException e) {
            throw new DatabaseAccessException(what + " could not be read (" + SqlFailure.describe(e)
                    + "); retry when PostgreSQL answers again", e);
        }
    }
}
