package org.ingestquarantine.db;

import java.sql.SQLException;

/** Describes a database failure in one line that is safe to log and show. */
public final class SqlFailure {

    private SqlFailure() {
    }

    /**
     * Connection failures (SQLState class 08, or none, as HikariCP's timeout) keep their message, which
     * names hosts and timeouts only; any other failure is named by SQLState and type, because the server's
     * message can echo bound values (document text).
     *
     * @param e a driver or pool exception
     * @return one line, no document text
     */
    public static String describe(SQLException e) {
        String state = e.getSQLState();
        if (state == null || state.startsWith("08")) {
            return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().replace('\n', ' ');
        }
        return "SQLState " + state + ", " + e.getClass().getSimpleName();
    }
}
