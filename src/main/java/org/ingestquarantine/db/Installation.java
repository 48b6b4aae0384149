package org.ingestquarantine.db;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** This database's identity (table {@code installation}, one row made by the migration), e.g. to claim a payload store. */
public final class Installation {

    private Installation() {
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @return the installation's id, a UUID in text
     * @throws DatabaseAccessException when it cannot be read
     */
    public static String id(DataSource dataSource) {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT id::text FROM installation")) {
            if (!r.next()) {
                throw new IllegalStateException("table installation has no row; the schema is not migrated");
            }
            return r.getString(1);
        } catch (SQLException e) {
            throw new DatabaseAccessException("the installation id could not be read: " + SqlFailure.describe(e), e);
        }
    }
}
