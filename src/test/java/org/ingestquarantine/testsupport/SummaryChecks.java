package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The summary tables the operator's questions read ({@code quarantine_summary}, {@code source_summary}, kept by
 * the triggers of V6) against an aggregate over the records and the index, as they must be after every commit.
 */
public final class SummaryChecks {

    private SummaryChecks() {
    }

    /**
     * @param db the migrated database
     * @param when what happened before, for the failure message
     * @throws SQLException if the database cannot be read
     * @throws AssertionError if a summary differs from the aggregate
     */
    public static void assertSummariesMatchTheRecords(DataSource db, String when) throws SQLException {
        assertThat(rows(db, """
                SELECT source, parser_version, error_class, error_fingerprint, disposition, owner, stripe, documents,
                       attempts, first_seen_min::text, first_seen_max::text, last_seen_max::text, stale
                FROM quarantine_summary ORDER BY 1, 2, 3, 4, 5, 6, 7
                """)).as("quarantine_summary, stripe by stripe, " + when).isEqualTo(rows(db, """
                SELECT source, COALESCE(parser_version, ''), error_class, COALESCE(error_fingerprint, ''), disposition,
                       COALESCE(owner, ''), quarantine_summary_stripe(source, doc_id), count(*), sum(attempts),
                       min(first_seen_at)::text, max(first_seen_at)::text, max(last_seen_at)::text, false
                FROM quarantine GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
                """));
        assertThat(rows(db, """
                SELECT source, indexed, open_indexed, unindexable_indexed FROM source_summary
                WHERE indexed > 0 ORDER BY 1
                """)).as("source_summary " + when).isEqualTo(rows(db, """
                SELECT d.source, count(*), count(*) FILTER (WHERE q.disposition = 'open'),
                       count(*) FILTER (WHERE q.disposition = 'unindexable')
                FROM documents d LEFT JOIN quarantine q ON q.source = d.source AND q.doc_id = d.doc_id
                WHERE d.state = 'searchable' GROUP BY d.source ORDER BY 1
                """));
        assertThat(rows(db, "SELECT source FROM source_summary WHERE indexed = 0 AND open_indexed + unindexable_indexed > 0"))
                .as("no overlap without an indexed document " + when).isEmpty();
    }

    /** @return every row of the query, numbers as {@code long} */
    public static List<List<Object>> rows(DataSource db, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> row = new ArrayList<>(columns);
                for (int i = 1; i <= columns; i++) {
                    Object v = rs.getObject(i);
                    row.add(v instanceof Number n ? (Object) n.longValue() : v);
                }
                rows.add(row);
            }
        }
        return rows;
    }
}
