package org.ingestquarantine.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The JDBC plumbing the store, the index and the journal share: a connection per call, statements with
 * positional arguments, rows mapped by a function, and transactions that commit or roll back whole. Every
 * method throws the driver's {@link SQLException} unchanged, so callers keep their SQLSTATE and wrap it in
 * their own exception with an operator-facing message. Thread-safe.
 *
 * <p>Arguments are bound by type: {@code null} as SQL NULL, {@link Instant} as {@code timestamptz}
 * ({@link SqlTime}), {@link Integer}, {@link Long} and {@link String} as themselves; anything else with
 * {@code setObject}.
 */
public final class Jdbc {

    /** Maps the current row of a result set. */
    @FunctionalInterface
    public interface RowMapper<T> {
        /**
         * @param row a result set on its current row
         * @return the row's value
         * @throws SQLException when a column cannot be read
         */
        T map(ResultSet row) throws SQLException;
    }

    /** Work inside one transaction, on its connection. */
    @FunctionalInterface
    public interface TransactionWork<T> {
        /**
         * @param connection the transaction's connection (auto-commit off)
         * @return the work's result
         * @throws SQLException rolls the transaction back
         */
        T run(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;

    /** @param dataSource a pool on the migrated schema */
    public Jdbc(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * @param sql an INSERT, UPDATE or DELETE with {@code ?} per argument
     * @param args the arguments
     * @return rows changed
     * @throws SQLException when the statement fails
     */
    public int update(String sql, Object... args) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return update(c, sql, args);
        }
    }

    /**
     * @param sql a query with {@code ?} per argument
     * @param mapper maps each row
     * @param args the arguments
     * @return every row, mapped, in order
     * @throws SQLException when the query fails
     */
    public <T> List<T> query(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return query(c, sql, mapper, args);
        }
    }

    /**
     * A statement with named parameters, each bound with its declared type ({@link NamedSql#bind}).
     *
     * @param sql the statement
     * @param values a value per parameter name (a missing name binds SQL NULL)
     * @param mapper maps each row
     * @return every row, mapped, in order
     * @throws SQLException when the statement fails
     */
    public <T> List<T> query(NamedSql sql, java.util.Map<String, ?> values, RowMapper<T> mapper) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql.sql())) {
            sql.bind(s, values);
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(mapper.map(rs));
                }
            }
            return rows;
        }
    }

    /**
     * @param sql a query with {@code ?} per argument
     * @param mapper maps the first row
     * @param args the arguments
     * @return the first row, mapped; empty when there is none
     * @throws SQLException when the query fails
     */
    public <T> Optional<T> queryFirst(String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return queryFirst(c, sql, mapper, args);
        }
    }

    /**
     * Runs {@code work} in one transaction: committed when it returns, rolled back when it throws (a failing
     * rollback is added to the exception as suppressed).
     *
     * @param work what to do
     * @return its result
     * @throws SQLException from the work or the commit; nothing was committed then
     */
    public <T> T inTransaction(TransactionWork<T> work) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }

    /** {@link #update(String, Object...)} on a given connection, e.g. inside {@link #inTransaction}. */
    public static int update(Connection c, String sql, Object... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            return s.executeUpdate();
        }
    }

    /** {@link #query(String, RowMapper, Object...)} on a given connection. */
    public static <T> List<T> query(Connection c, String sql, RowMapper<T> mapper, Object... args) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(mapper.map(rs));
                }
            }
            return rows;
        }
    }

    /** {@link #queryFirst(String, RowMapper, Object...)} on a given connection. */
    public static <T> Optional<T> queryFirst(Connection c, String sql, RowMapper<T> mapper, Object... args)
            throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(s, args);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? Optional.ofNullable(mapper.map(rs)) : Optional.empty();
            }
        }
    }

    private static void bind(PreparedStatement s, Object... args) throws SQLException {
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            int index = i + 1;
            if (a == null) {
                s.setNull(index, Types.NULL);
            } else if (a instanceof Instant instant) {
                SqlTime.set(s, index, instant);
            } else if (a instanceof String text) {
                s.setString(index, text);
            } else if (a instanceof Long number) {
                s.setLong(index, number);
            } else if (a instanceof Integer number) {
                s.setInt(index, number);
            } else {
                s.setObject(index, a);
            }
        }
    }
}
