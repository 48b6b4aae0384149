package org.ingestquarantine.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/** One real embedded PostgreSQL per test class, migrated, with every table emptied before each test. */
public abstract class PostgresTestBase {

    protected static EmbeddedPostgresService postgres;
    protected static Database database;
    protected static Path dataDirectory;

    @BeforeAll
    static void startPostgres() throws Exception {
        dataDirectory = Files.createTempDirectory("iq-pg-");
        postgres = EmbeddedPostgresService.start(dataDirectory, 0);
        database = Database.open(postgres.jdbcUrl(), postgres.user(), postgres.password());
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        if (database != null) {
            database.close();
        }
        if (postgres != null) {
            postgres.stop();
        }
        deleteTree(dataDirectory);
    }

    @BeforeEach
    void emptyTables() throws SQLException {
        postgres.start();
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("TRUNCATE operator_actions, drain_run_items, drain_runs, source_totals, source_roots, quarantine_attempt, quarantine, chunks, documents,"
                    + " attempt_journal RESTART IDENTITY");
        }
    }

    protected static DataSource dataSource() {
        return database.dataSource();
    }

    public static void deleteTree(Path root) throws Exception {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
