package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures opening a database migrated before runs nothing and opens it, and that Flyway's validation refuses a
 * history the bundled migrations do not match (an edited script, a failed or a missing migration) with one line
 * naming the database and Flyway's reason, while a newer version's migration and an edited repeatable script
 * are what Flyway makes of them (used as is; applied again).
 */
class SchemaValidationIT extends PostgresTestBase {

    @Test
    void shouldOpenADatabaseMigratedBeforeWithoutMigratingIt() throws SQLException {
        long before = historyRows();
        open();
        assertThat(historyRows()).isEqualTo(before);
    }

    @Test
    void shouldRefuseAnAppliedScriptThatDiffersFromTheBundledOne() throws SQLException {
        exec("UPDATE flyway_schema_history SET checksum = checksum + 1 WHERE version = '2'");
        try {
            assertThatThrownBy(SchemaValidationIT::open).isInstanceOf(DatabaseUnavailableException.class)
                    .hasMessageContaining("PostgreSQL at " + postgres.jdbcUrl() + " could not be migrated")
                    .hasMessageContaining("checksum mismatch for migration version 2")
                    .hasMessageContaining("check that the schema was created by this application")
                    .hasMessageNotContaining("\n");
        } finally {
            exec("UPDATE flyway_schema_history SET checksum = checksum - 1 WHERE version = '2'");
        }
        open();
    }

    @Test
    void shouldRefuseAFailedOrMissingMigration() throws SQLException {
        exec("UPDATE flyway_schema_history SET success = false WHERE version = '8'");
        try {
            assertThatThrownBy(SchemaValidationIT::open).isInstanceOf(DatabaseUnavailableException.class)
                    .hasMessageContaining("could not be migrated").hasMessageContaining("failed migration to version 8");
        } finally {
            exec("UPDATE flyway_schema_history SET success = true WHERE version = '8'");
        }
        exec("CREATE TABLE history_copy AS SELECT * FROM flyway_schema_history WHERE version = '8'");
        try {
            exec("DELETE FROM flyway_schema_history WHERE version = '8'");
            assertThatThrownBy(SchemaValidationIT::open).isInstanceOf(DatabaseUnavailableException.class)
                    .hasMessageContaining("could not be migrated").hasMessageContaining("not applied to database: 8");
        } finally {
            exec("INSERT INTO flyway_schema_history SELECT * FROM history_copy");
            exec("DROP TABLE history_copy");
        }
        open();
    }

    @Test
    void shouldUseADatabaseANewerVersionMigratedAsItIs() throws SQLException {
        exec("INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                + " installed_by, execution_time, success) VALUES (999, '999', 'newer', 'SQL', 'V999__newer.sql',"
                + " 1, 'postgres', 1, true)");
        try {
            long before = historyRows();
            open();
            assertThat(historyRows()).isEqualTo(before);
        } finally {
            exec("DELETE FROM flyway_schema_history WHERE version = '999'");
        }
    }

    @Test
    void shouldApplyTheRepeatableScriptAgainWhenItChangedSinceItWasLastApplied() throws SQLException {
        // as Flyway leaves it after applying an edited R__summaries.sql
        exec("INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                + " installed_by, execution_time, success) SELECT 998, NULL, description, type, script,"
                + " checksum + 1, installed_by, 1, true FROM flyway_schema_history WHERE script = 'R__summaries.sql'"
                + " ORDER BY installed_rank DESC LIMIT 1");
        try {
            open();
            assertThat(historyRows("script = 'R__summaries.sql' AND installed_rank > 998")).isEqualTo(1);
        } finally {
            exec("DELETE FROM flyway_schema_history WHERE installed_rank >= 998");
        }
    }

    private static void open() {
        Database.open(postgres.jdbcUrl(), postgres.user(), postgres.password()).close();
    }

    private static long historyRows() throws SQLException {
        return historyRows("true");
    }

    private static long historyRows(String where) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT count(*) FROM flyway_schema_history WHERE " + where)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void exec(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
