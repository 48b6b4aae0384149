package org.ingestquarantine.testsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The one SQL count helper of the tests: the first column of the first row of a query, as a number; and where a
 * text survives (erasure tests): the tables with a row holding it.
 */
public final class SqlCount {

    private SqlCount() {
    }

    /**
     * @param db where to ask
     * @param sql a query whose first column of the first row is a number, with {@code ?} for each argument
     * @param args the query's string arguments, in order
     * @return that number
     * @throws SQLException when the query fails or returns no row
     */
    public static long of(DataSource db, String sql, String... args) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setString(i + 1, args[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("no row: " + sql);
                }
                return rs.getLong(1);
            }
        }
    }

    /**
     * @param db where to ask
     * @return every table of the public schema
     * @throws SQLException when the catalog cannot be read
     */
    public static List<String> tables(DataSource db) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                tables.add(rs.getString(1));
            }
        }
        return tables;
    }

    /**
     * @param db where to ask
     * @param text any text, taken literally
     * @return the tables of the public schema with a row whose text form (every column) contains {@code text}; a
     *     list the caller may add to
     * @throws SQLException when a table cannot be read
     */
    public static List<String> tablesHolding(DataSource db, String text) throws SQLException {
        List<String> holding = new ArrayList<>();
        for (String table : tables(db)) {
            if (of(db, "SELECT count(*) FROM \"" + table + "\" t WHERE strpos(t::text, ?) > 0", text) > 0) {
                holding.add(table);
            }
        }
        return holding;
    }
}
