package org.ingestquarantine.testsupport;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationVersion;

/**
 * A schema of its own in the test database for a migration test: migrated to a version before the one under test,
 * filled as a store of that version was, migrated on, and dropped on close. Its statement's search path is the schema.
 */
public final class MigrationSchema implements AutoCloseable {

    private final DataSource dataSource;
    private final String name;
    private final Connection connection;
    private final Statement statement;

    private MigrationSchema(DataSource dataSource, String name) throws SQLException {
        this.dataSource = dataSource;
        this.name = name;
        this.connection = dataSource.getConnection();
        this.statement = connection.createStatement();
    }

    /**
     * @param dataSource the test database
     * @param name the schema's name; a schema of that name left by an earlier run is dropped first
     * @param version the version to migrate it to
     * @return the schema, its statement's search path set to it
     * @throws SQLException if the database fails
     */
    public static MigrationSchema migratedTo(DataSource dataSource, String name, String version) throws SQLException {
        MigrationSchema schema = new MigrationSchema(dataSource, name);
        schema.statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        schema.migrate(version);
        schema.statement.execute("SET search_path TO " + name);
        return schema;
    }

    /**
     * @param before a version not yet in this tree's migrations
     * @return the newest bundled migration version older than it, whichever others come in below it
     */
    public static String newestBefore(DataSource dataSource, String before) {
        return java.util.Arrays.stream(flyway(dataSource, "public").load().info().all())
                .map(m -> m.getVersion()).filter(v -> v != null && !v.isAtLeast(before))  // null: R__
                .max(MigrationVersion::compareTo).orElseThrow().getVersion();
    }

    /** Migrates the schema on to {@code version}. */
    public void migrate(String version) {
        flyway(dataSource, name).target(version).load().migrate();
    }

    /** @return the statement, on the schema */
    public Statement statement() {
        return statement;
    }

    /** @return the first column of the query's first row, as text */
    public String one(String sql) throws SQLException {
        try (ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        } finally {
            statement.close();
            connection.close();
        }
    }

    private static org.flywaydb.core.api.configuration.FluentConfiguration flyway(DataSource dataSource, String schema) {
        return Flyway.configure().dataSource(dataSource).schemas(schema).defaultSchema(schema)
                .locations("classpath:db/migration");
    }
}
