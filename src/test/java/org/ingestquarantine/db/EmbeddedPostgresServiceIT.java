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
class EmbeddedPostgresServiceIT {

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

    /**
     * Another user of the machine (or anything else on it) cannot connect: neither as the superuser nor as the
     * application's role nor as any other role without the password from the folder's credentials file, which only
     * the folder's owner can read. The application's role is no superuser and owns its database.
     */
    @Test
    void shouldRefuseEveryConnectionWithoutItsRolesPassword() throws Exception {
        Path folder = Files.createTempDirectory("iq-pg-access-");
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(folder, 0)) {
            for (String[] who : new String[][] {{"postgres", ""}, {"nobody", ""}, {"nobody", "nobody"},
                    {"postgres", "postgres"}, {EmbeddedPostgresService.USER, ""}, {EmbeddedPostgresService.USER, "guess"}}) {
                assertThatThrownBy(() -> java.sql.DriverManager.getConnection(pg.jdbcUrl(), who[0], who[1]).close())
                        .as("%s with password '%s'", who[0], who[1])
                        .isInstanceOfSatisfying(java.sql.SQLException.class, e -> assertThat(e.getSQLState())
                                .as(e.getMessage()).isIn("28P01", "28000", "08004"));
            }
            try (Connection c = java.sql.DriverManager.getConnection(pg.jdbcUrl(), pg.user(), pg.password());
                 Statement s = c.createStatement();
                 java.sql.ResultSet rs = s.executeQuery("SELECT current_user, (SELECT rolsuper FROM pg_roles WHERE"
                         + " rolname = current_user), (SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname ="
                         + " current_database())")) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("ingest_quarantine");
                assertThat(rs.getBoolean(2)).as("superuser").isFalse();
                assertThat(rs.getString(3)).as("the database's owner").isEqualTo("ingest_quarantine");
            }
            Path secret = folder.resolve(EmbeddedCredentials.FILE);
            assertThat(java.nio.file.Files.getPosixFilePermissions(secret))
                    .containsExactlyInAnyOrderElementsOf(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
            assertThat(EmbeddedCredentials.read(secret)).hasValueSatisfying(c ->
                    assertThat(c.appPassword()).isEqualTo(pg.password()).hasSizeGreaterThanOrEqualTo(40));
            assertThat(Files.readString(folder.resolve("pg_hba.conf"))).doesNotContain("trust");
            assertThat(folder.resolveSibling("." + folder.getFileName() + "." + EmbeddedCredentials.FILE))
                    .as("the pending copy, gone once saved").doesNotExist();
        } finally {
            PostgresTestBase.deleteTree(folder);
        }
    }

    /**
     * A folder made before passwords (initdb's trust for every local connection, the schema and its rows the
     * superuser's) is secured at its next start: its rows stay, the application's role owns and can change them,
     * and a connection without a password is refused from then on.
     */
    @Test
    void shouldSecureAFolderMadeBeforePasswordsAndKeepItsData() throws Exception {
        Path folder = Files.createTempDirectory("iq-pg-old-");
        try {
            try (io.zonky.test.db.postgres.embedded.EmbeddedPostgres old = io.zonky.test.db.postgres.embedded.EmbeddedPostgres
                    .builder().setDataDirectory(folder).setCleanDataDirectory(false).start();
                 Database db = Database.open(old.getJdbcUrl("postgres", "postgres"), "postgres", "")) {
                exec(db, "INSERT INTO source_totals (source, documents, counted_at, counted_by) VALUES ('old', 7, now(),"
                        + " 'listed')");
            }
            assertThat(Files.readString(folder.resolve("pg_hba.conf"))).contains("trust");
            try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(folder, 0);
                 Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
                assertThat(SqlCount.of(db.dataSource(), "SELECT documents FROM source_totals WHERE source = 'old'"))
                        .isEqualTo(7);
                exec(db, "ALTER TABLE source_totals ADD COLUMN owned_now int; ALTER TABLE source_totals DROP COLUMN"
                        + " owned_now; UPDATE source_totals SET documents = 8");
                assertThat(SqlCount.of(db.dataSource(), "SELECT count(*) FROM pg_class WHERE relnamespace ="
                        + " 'public'::regnamespace AND relowner <> 'ingest_quarantine'::regrole")).as("not yet owned").isZero();
                assertThatThrownBy(() -> java.sql.DriverManager.getConnection(pg.jdbcUrl(), "postgres", "").close())
                        .isInstanceOf(java.sql.SQLException.class);
            }
            try (EmbeddedPostgresService again = EmbeddedPostgresService.start(folder, 0);
                 Database db = Database.open(again.jdbcUrl(), again.user(), again.password())) {
                assertThat(SqlCount.of(db.dataSource(), "SELECT documents FROM source_totals")).isEqualTo(8);
            }
        } finally {
            PostgresTestBase.deleteTree(folder);
        }
    }

    private static void exec(Database db, String sql) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

}
