package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures start-up skips Flyway only for a schema Flyway itself would leave alone: the checksums agree with
 * Flyway's (the database was migrated by Flyway), and an edited, failed or unknown migration means "migrate".
 */
class SchemaCurrencyIT extends PostgresTestBase {

    @Test
    void shouldFindTheSchemaFlywayMigratedCurrent() {
        assertThat(SchemaCurrency.bundled()).get().satisfies(m -> assertThat(m).containsKeys("1", "6.1", "8", "R:summaries"));
        assertThat(SchemaCurrency.isCurrent(dataSource())).isTrue();
    }

    @Test
    void shouldNotFindItCurrentWhenAnAppliedScriptDiffersFromTheBundledOne() throws SQLException {
        exec("UPDATE flyway_schema_history SET checksum = checksum + 1 WHERE version = '2'");
        try {
            assertThat(SchemaCurrency.isCurrent(dataSource())).isFalse();
        } finally {
            exec("UPDATE flyway_schema_history SET checksum = checksum - 1 WHERE version = '2'");
        }
        assertThat(SchemaCurrency.isCurrent(dataSource())).isTrue();
    }

    @Test
    void shouldNotFindItCurrentWhenTheRepeatableScriptChangedSinceItWasLastApplied() throws SQLException {
        try {
            // as Flyway leaves it after applying an edited R__summaries.sql, then after applying it again as bundled
            exec("INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                    + " installed_by, execution_time, success) SELECT 998, NULL, description, type, script,"
                    + " checksum + 1, installed_by, 1, true FROM flyway_schema_history WHERE script = 'R__summaries.sql'");
            assertThat(SchemaCurrency.isCurrent(dataSource())).isFalse();
            exec("INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                    + " installed_by, execution_time, success) SELECT 999, NULL, description, type, script,"
                    + " checksum - 1, installed_by, 1, true FROM flyway_schema_history WHERE installed_rank = 998");
            assertThat(SchemaCurrency.isCurrent(dataSource())).isTrue();
        } finally {
            exec("DELETE FROM flyway_schema_history WHERE installed_rank IN (998, 999)");
        }
        assertThat(SchemaCurrency.isCurrent(dataSource())).isTrue();
    }

    @Test
    void shouldNotFindItCurrentWhenAMigrationFailedOrIsMissingOrUnknown() throws SQLException {
        exec("UPDATE flyway_schema_history SET success = false WHERE version = '8'");
        try {
            assertThat(SchemaCurrency.isCurrent(dataSource())).isFalse();
        } finally {
            exec("UPDATE flyway_schema_history SET success = true WHERE version = '8'");
        }
        exec("CREATE TABLE history_copy AS SELECT * FROM flyway_schema_history");
        try {
            exec("DELETE FROM flyway_schema_history WHERE version = '8'");
            assertThat(SchemaCurrency.isCurrent(dataSource())).isFalse();
            exec("INSERT INTO flyway_schema_history SELECT * FROM history_copy WHERE version = '8'");
            exec("INSERT INTO flyway_schema_history (installed_rank, version, description, type, script, checksum,"
                    + " installed_by, execution_time, success) VALUES (999, '999', 'newer', 'SQL', 'V999__newer.sql',"
                    + " 1, 'postgres', 1, true)");
            assertThat(SchemaCurrency.isCurrent(dataSource())).isFalse();
        } finally {
            exec("DELETE FROM flyway_schema_history WHERE version = '999'");
            exec("DROP TABLE history_copy");
        }
        assertThat(SchemaCurrency.isCurrent(dataSource())).isTrue();
    }

    private static void exec(String sql) throws SQLException {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
