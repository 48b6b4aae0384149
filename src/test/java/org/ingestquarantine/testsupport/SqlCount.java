package org.ingestquarantine.testsupport;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The one SQL count helper of the tests: the first column of the first row of a query, as a number. */
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
}
