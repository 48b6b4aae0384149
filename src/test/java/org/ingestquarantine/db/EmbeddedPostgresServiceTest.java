package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.Test;

/** Ensures the embedded server keeps its data across stop/start and JVM-style restarts, and start-up fails in one line. */
class EmbeddedPostgresServiceTest {

    @Test
    void shouldKeepDataAcrossRestartOnTheSamePortAndAcrossANewServiceOnTheSameFolder() throws Exception {
        Path folder = Files.createTempDirectory("iq-pg-restart-");
        try {
            int port;
            try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(folder, 0);
                 Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
                port = pg.port();
                exec(db, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");

                pg.stop();
                assertThat(pg.isRunning()).isFalse();
                assertThatThrownBy(() -> SqlCount.of(db.dataSource(), "SELECT v FROM kept")).isInstanceOf(java.sql.SQLException.class);

                pg.start();
                assertThat(pg.port()).isEqualTo(port);
                assertThat(SqlCount.of(db.dataSource(), "SELECT v FROM kept")).isEqualTo(42);  // the same pool reconnects by itself
            }
            try (EmbeddedPostgresService again = EmbeddedPostgresService.start(folder, 0);
                 Database db = Database.open(again.jdbcUrl(), again.user(), again.password())) {
                assertThat(SqlCount.of(db.dataSource(), "SELECT v FROM kept")).isEqualTo(42);
            }
        } finally {
            PostgresTestBase.deleteTree(folder);
        }
    }

    @Test
    void shouldCommitDurablyWithFsyncAndSynchronousCommitOn() throws Exception {
        Path folder = Files.createTempDirectory("iq-pg-durable-");
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(folder, 0);
             Connection c = java.sql.DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
             Statement s = c.createStatement()) {
            for (String setting : new String[] {"fsync", "synchronous_commit"}) {
                try (java.sql.ResultSet rs = s.executeQuery("SHOW " + setting)) {
                    rs.next();
                    assertThat(rs.getString(1)).as(setting).isEqualTo("on");
                }
            }
        } finally {
            PostgresTestBase.deleteTree(folder);
        }
    }

    @Test
    void shouldFailInOneClearLineWhenTheDatabaseIsUnreachable() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "jdbc:postgresql://localhost:" + port + "/postgres";
        long start = System.nanoTime();
        assertThatThrownBy(() -> Database.open(url, "postgres", "", Duration.ofMillis(500)))
                .isInstanceOf(DatabaseUnavailableException.class)
                .hasMessageStartingWith("PostgreSQL at " + url + " is unreachable: ")
                .hasMessageEndingWith("; start it or set db.url")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    private static void exec(Database db, String sql) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

}
