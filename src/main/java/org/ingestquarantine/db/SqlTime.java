package org.ingestquarantine.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** Converts between {@link Instant} and PostgreSQL {@code timestamptz} (microsecond precision, UTC). */
public final class SqlTime {

    private SqlTime() {
    }

    /** Binds {@code instant} (or SQL NULL) to parameter {@code index}. */
    public static void set(PreparedStatement statement, int index, Instant instant) throws SQLException {
        if (instant == null) {
            statement.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
            statement.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
        }
    }

    /** @return the column's instant, or {@code null} for SQL NULL */
    public static Instant get(ResultSet row, String column) throws SQLException {
        OffsetDateTime value = row.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }
}
