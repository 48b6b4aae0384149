package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * The pool after its server dropped every connection (as a restart faster than HikariCP's 500 ms alive-bypass
 * window does): at most one caller sees the loss, the next borrow works. The backends are ended with
 * {@code pg_terminate_backend}, which sends them the same 57P01 a shutdown sends.
 */
class ConnectionLossIT extends PostgresTestBase {

    @Test
    void shouldLetAtMostOneCallerSeeTheLossWhenEveryPooledConnectionWasDropped() throws Exception {
        List<Connection> borrowed = new ArrayList<>();
        List<Integer> pids = new ArrayList<>();
        for (int i = 0; i < Database.MAX_POOL_SIZE; i++) {
            Connection c = dataSource().getConnection();
            borrowed.add(c);
            pids.add(backendPid(c));
        }
        try (Connection admin = DriverManager.getConnection(postgres.jdbcUrl(), postgres.user(), postgres.password());
             Statement s = admin.createStatement()) {
            for (int pid : pids) {
                s.execute("SELECT pg_terminate_backend(" + pid + ")");
            }
        }
        for (Connection c : borrowed) {
            c.close();  // back to the pool, last used just now: HikariCP will not check them when borrowed
        }

        int failures = 0;
        for (int i = 0; i < Database.MAX_POOL_SIZE; i++) {
            try (Connection c = dataSource().getConnection()) {
                assertThat(pids).doesNotContain(backendPid(c));
            } catch (SQLException e) {
                assertThat(EvictAllOnConnectionLoss.isConnectionLoss(e.getSQLState())).as(e.getSQLState()).isTrue();
                failures++;
            }
        }
        assertThat(failures).as("callers that were handed a dropped connection").isLessThanOrEqualTo(1);
    }

    @Test
    void shouldTellConnectionLossFromOtherFailures() {
        assertThat(EvictAllOnConnectionLoss.isConnectionLoss("08006")).isTrue();
        assertThat(EvictAllOnConnectionLoss.isConnectionLoss("57P01")).isTrue();
        assertThat(EvictAllOnConnectionLoss.isConnectionLoss("57P03")).isTrue();
        assertThat(EvictAllOnConnectionLoss.isConnectionLoss("23505")).isFalse();
        assertThat(EvictAllOnConnectionLoss.isConnectionLoss(null)).isFalse();
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
