package org.ingestquarantine.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlTime;
import org.ingestquarantine.metrics.SkippedCoverage;
import org.ingestquarantine.quarantine.Disposition;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.PreparedStatementSetter;
import org.springframework.jdbc.core.RowCallbackHandler;

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
    private final JdbcTemplate jdbc;
    private final SkippedCoverage skippedCoverage;

    OperatorQueries(DataSource dataSource) {
        this(dataSource, SkippedCoverage.EXCLUDED);
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @param skippedCoverage how coverage counts documents skipped by policy ({@value SkippedCoverage#PROPERTY})
     */
    OperatorQueries(DataSource dataSource, SkippedCoverage skippedCoverage) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.jdbc = OperatorSql.jdbc(dataSource);
        this.skippedCoverage = Objects.requireNonNull(skippedCoverage, "skippedCoverage");
    }

    /** @return how coverage counts documents skipped by policy */
    SkippedCoverage skippedCoverage() {
        return skippedCoverage;
    }

    /** @return these queries over the same database, counting skipped documents as {@code skippedCoverage} says */
    OperatorQueries countingSkipped(SkippedCoverage skippedCoverage) {
        return new OperatorQueries(dataSource, skippedCoverage);
    }

    StatsReport stats(String source) {
        return stats(source, present -> java.util.function.UnaryOperator.identity());
    }

    /**
     * @param source only this source, or null
     * @param rowsOf given the sources with figures, the row each source's figures are shown in: its own, or a
     *     shared one (its figures summed there; {@link SourceRows#over})
     */
    StatsReport stats(String source, java.util.function.Function<java.util.SortedSet<String>,
            java.util.function.UnaryOperator<String>> rowsOf) {
        String sql = "SELECT source, disposition, sum(attempts) AS records, sum(documents) AS documents,"
                + " min(first_seen_min) AS oldest, max(first_seen_max) AS newest FROM quarantine_summary"
                + (source == null ? "" : " WHERE source = ?") + " GROUP BY source, disposition ORDER BY source";
        Map<String, List<Object[]>> bySource = new TreeMap<>();
        read("quarantine statistics", sql, s -> {
            if (source != null) {
                s.setString(1, source);
            }
        }, rs -> bySource.computeIfAbsent(rs.getString("source"), k -> new ArrayList<>()).add(new Object[] {
                rs.getString("disposition"), rs.getLong("records"), rs.getLong("documents"),
                SqlTime.get(rs, "oldest"), SqlTime.get(rs, "newest")}));
        java.util.function.UnaryOperator<String> rowOf = rowsOf.apply(new java.util.TreeSet<>(bySource.keySet()));
        Map<String, List<Object[]>> byRow = new TreeMap<>();
        bySource.forEach((name, parts) -> byRow.computeIfAbsent(rowOf.apply(name), k -> new ArrayList<>()).addAll(parts));
        List<SourceQuarantineStats> rows = new ArrayList<>();
        List<Object[]> all = new ArrayList<>();
        byRow.forEach((name, parts) -> {
            rows.add(combine(name, parts));
            all.addAll(parts);
        });
        return new StatsReport(rows, combine("*", all));
    }

    /** @return the sources with a known total ({@code source_totals}: listed, stated or counted by an ingest) */
    java.util.Set<String> sourcesWithTotals() {
        java.util.Set<String> names = new java.util.HashSet<>();
        read("the sources with totals", "SELECT source FROM source_totals", s -> { }, rs -> names.add(rs.getString(1)));
        return names;
    }

    /**
     * @param source a source name
     * @return whether the data names it: a quarantine record, an indexed document, a source_totals row or a
     *     folder an ingest configured for it ({@code source_roots})
     */
    boolean sourceInData(String source) {
        boolean[] found = {false};
        read("the known sources", """
                SELECT EXISTS (SELECT 1 FROM quarantine_summary WHERE source = ?)
                    OR EXISTS (SELECT 1 FROM documents WHERE source = ?)
                    OR EXISTS (SELECT 1 FROM source_totals WHERE source = ?)
                    OR EXISTS (SELECT 1 FROM source_roots WHERE source = ?)
                """, s -> {
            for (int i = 1; i <= 4; i++) {
                s.setString(i, source);
            }
        }, rs -> found[0] = rs.getBoolean(1));
        return found[0];
    }

    /**
     * @param limit at most this many
     * @return the first {@code limit} source names the data holds, sorted
     */
    List<String> sourcesInData(int limit) {
        List<String> names = new ArrayList<>();
        read("the known sources", """
                SELECT source FROM source_summary UNION SELECT source FROM quarantine_summary
                UNION SELECT source FROM source_totals UNION SELECT source FROM source_roots
                ORDER BY source LIMIT ?
                """, s -> s.setInt(1, limit), rs -> names.add(rs.getString(1)));
        return names;
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

    /**
     * @param source only this source, or null
     * @param errorClass only this class code, or null
     * @param runningParser the parser version running now: cohorts of another are stale
     * @param runningFingerprint the fingerprint algorithm's version now ({@code ErrorFingerprint.VERSION}): a cohort
     *     holding open records of an older one, or of none (written before versioning), is marked
     * @return every open cohort, most documents first
     */
    List<CohortRow> cohorts(String source, String errorClass, String runningParser, int runningFingerprint) {
        // the example is the oldest open record of the cohort's oldest group, one probe of index quarantine_group;
        // the records of an older fingerprint algorithm are read from index quarantine_open_fingerprint_version (V28)
        String filters = (source == null ? "" : " AND source = ?") + (errorClass == null ? "" : " AND error_class = ?");
        String sql = """
                WITH g AS (
                    -- a group's stripes (V17) first: the ordered aggregates below then sort groups, not stripes
                    SELECT source, parser_version, error_class, error_fingerprint, owner, sum(documents) AS documents,
                           sum(attempts) AS attempts, min(first_seen_min) AS first_seen_min,
                           max(last_seen_max) AS last_seen_max
                    FROM quarantine_summary WHERE disposition = 'open' %1$s
                    GROUP BY source, parser_version, error_class, error_fingerprint, owner
                ), c AS (
                    SELECT parser_version, error_class, error_fingerprint, sum(documents) AS documents,
                           sum(attempts) AS attempts, min(first_seen_min) AS since, max(last_seen_max) AS last_seen,
                           (array_agg(source ORDER BY first_seen_min))[1] AS example_source,
                           (array_agg(owner ORDER BY first_seen_min))[1] AS example_owner,
                           array_agg(DISTINCT owner ORDER BY owner) FILTER (WHERE documents > 0) AS owners
                    FROM g GROUP BY parser_version, error_class, error_fingerprint
                ), v AS (
                    SELECT COALESCE(parser_version, '') AS parser_version, error_class,
                           COALESCE(error_fingerprint, '') AS error_fingerprint, count(*) AS older,
                           min(COALESCE(fingerprint_version, 0)) AS oldest
                    FROM quarantine WHERE disposition = 'open' AND COALESCE(fingerprint_version, 0) < ? %1$s
                    GROUP BY 1, 2, 3
                )
                SELECT NULLIF(c.parser_version, '') AS parser_version, c.error_class,
                       NULLIF(c.error_fingerprint, '') AS error_fingerprint, c.documents, c.attempts, c.since,
                       c.last_seen, e.dlq_id AS example, e.error_type, e.error_message, c.owners, v.oldest,
                       COALESCE(v.older, 0) AS older
                FROM c LEFT JOIN v ON (v.parser_version, v.error_class, v.error_fingerprint)
                                      = (c.parser_version, c.error_class, c.error_fingerprint)
                LEFT JOIN LATERAL (
                    SELECT q.dlq_id, q.error_type, q.error_message FROM quarantine q
                    WHERE q.source = c.example_source AND COALESCE(q.parser_version, '') = c.parser_version
                      AND q.error_class = c.error_class AND COALESCE(q.error_fingerprint, '') = c.error_fingerprint
                      AND q.disposition = 'open' AND COALESCE(q.owner, '') = c.example_owner
                    ORDER BY q.first_seen_at LIMIT 1) e ON true
                ORDER BY c.documents DESC, c.since, c.parser_version, c.error_class, c.error_fingerprint
                """.formatted(filters);
        List<CohortRow> rows = new ArrayList<>();
        read("cohorts", sql, s -> {
            int i = 1;
            for (int pass = 0; pass < 2; pass++) {
                if (pass == 1) {
                    s.setInt(i++, runningFingerprint);
                }
                if (source != null) {
                    s.setString(i++, source);
                }
                if (errorClass != null) {
                    s.setString(i++, errorClass);
                }
            }
        }, rs -> {
            Integer oldest = rs.getObject("oldest", Integer.class);
            Integer version = oldest == null ? Integer.valueOf(runningFingerprint) : oldest == 0 ? null : oldest;
            rows.add(new CohortRow(rs.getString(1), !runningParser.equals(rs.getString(1)), rs.getString(2),
                    rs.getString(3), rs.getLong(4), rs.getLong(5), SqlTime.get(rs, "since"), SqlTime.get(rs, "last_seen"),
                    rs.getString("example"), rs.getString("error_type"), firstLine(rs.getString("error_message")),
                    owners(rs.getArray("owners")), version, rs.getLong("older") > 0, rs.getLong("older")));
        });
        return rows;
    }

    /** @return a cohort's owners as the summary holds them ('' for none), none shown as {@link OperatorService#UNOWNED} */
    private static List<String> owners(java.sql.Array owners) throws java.sql.SQLException {
        if (owners == null) {
            return List.of();
        }
        List<String> named = new ArrayList<>();
        boolean unowned = false;
        for (Object owner : (Object[]) owners.getArray()) {
            if (owner == null || owner.toString().isEmpty()) {
                unowned = true;
            } else {
                named.add(owner.toString());
            }
        }
        if (unowned) {
            named.add(OperatorService.UNOWNED);
        }
        return List.copyOf(named);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return null;
        }
        String line = message.lines().findFirst().orElse("").replaceAll("\\p{Cntrl}", " ");
        return line.length() <= EXAMPLE_MESSAGE_CHARS ? line : line.substring(0, EXAMPLE_MESSAGE_CHARS - 3) + "...";
    }

    /** @return the one coverage query's rows ({@link org.ingestquarantine.quarantine.QuarantineQueries#coverage}) */
    List<CoverageRow> coverage(Instant now) {
        List<CoverageRow> rows = new ArrayList<>();
        for (var c : new org.ingestquarantine.quarantine.QuarantineQueries(dataSource, skippedCoverage)
                .coverage(List.of())) {
            rows.add(CoverageRow.of(c, now));
        }
        return rows;
    }

    /** @return open records first seen before the cut-off by (owner, source, class, fingerprint) */
    List<Object[]> overdue(Instant firstSeenBefore) {
        // Groups wholly past the cut-off count whole; a group straddling it counts its records on the smaller
        // side of the cut-off (judged from its first and last first_seen_at) in index quarantine_group. A group's
        // stripes (V17) are summed first.
        String sql = """
                WITH s AS (
                    SELECT owner, source, parser_version, error_class, error_fingerprint,
                           sum(documents) AS documents, min(first_seen_min) AS first_seen_min,
                           max(first_seen_max) AS first_seen_max
                    FROM quarantine_summary WHERE disposition = 'open'
                    GROUP BY owner, source, parser_version, error_class, error_fingerprint
                ), g AS (
                    SELECT s.owner, s.source, s.error_class, s.error_fingerprint, s.first_seen_min,
                           CASE WHEN s.first_seen_max < CAST(? AS timestamptz) THEN s.documents
                                WHEN CAST(? AS timestamptz) - s.first_seen_min > s.first_seen_max - CAST(? AS timestamptz)
                                THEN s.documents - (SELECT count(*) FROM quarantine q WHERE %1$s
                                                    AND q.first_seen_at >= CAST(? AS timestamptz))
                                ELSE (SELECT count(*) FROM quarantine q WHERE %1$s
                                      AND q.first_seen_at < CAST(? AS timestamptz)) END AS documents
                    FROM s WHERE s.first_seen_min < CAST(? AS timestamptz)
                )
                SELECT NULLIF(owner, '') AS owner, source, error_class, NULLIF(error_fingerprint, '') AS error_fingerprint,
                       sum(documents) AS documents, min(first_seen_min) AS oldest
                FROM g GROUP BY owner, source, error_class, error_fingerprint
                ORDER BY NULLIF(owner, '') NULLS LAST, documents DESC, source, error_class, error_fingerprint
                """.formatted("""
                q.source = s.source AND COALESCE(q.parser_version, '') = s.parser_version
                AND q.error_class = s.error_class AND COALESCE(q.error_fingerprint, '') = s.error_fingerprint
                AND q.disposition = 'open' AND COALESCE(q.owner, '') = s.owner""");
        List<Object[]> rows = new ArrayList<>();
        read("overdue records", sql, s -> {
            for (int i = 1; i <= 6; i++) {
                SqlTime.set(s, i, firstSeenBefore);
            }
        }, rs -> rows.add(new Object[] {
                rs.getString(1), new OverdueCohort(rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                SqlTime.get(rs, "oldest"))}));
        return rows;
    }

    /**
     * @param binder binds the statement's parameters
     * @param reader told each row
     * @throws DatabaseAccessException if the database fails
     */
    void read(String what, String sql, PreparedStatementSetter binder, RowCallbackHandler reader) {
        try {
            jdbc.query(sql, binder, reader);
        } catch (DataAccessException e) {
            throw OperatorSql.failure(what + " could not be read", e);
        }
    }
}
