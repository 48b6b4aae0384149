package org.ingestquarantine.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.jdbc.support.SQLExceptionSubclassTranslator;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring JDBC set up the way the stores use it: templates whose exception translation never asks the database for
 * its metadata (so a failure during an outage costs no extra connection attempt), and the driver's
 * {@link SQLException} recovered from Spring's exceptions, so that callers keep their SQLSTATE, their one-line
 * message ({@link SqlFailure}) and the cause chain the error classifier reads. Stateless; thread-safe.
 */
public final class SpringJdbc {

    private SpringJdbc() {
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @return a template taking a connection per call (or the one of the Spring transaction running)
     */
    public static JdbcTemplate template(DataSource dataSource) {
        JdbcTemplate template = new JdbcTemplate(dataSource);
        template.setExceptionTranslator(new SQLExceptionSubclassTranslator());
        return template;
    }

    /** @return {@link #template(DataSource)} with named parameters ({@code :name}) */
    public static NamedParameterJdbcTemplate named(DataSource dataSource) {
        return new NamedParameterJdbcTemplate(template(dataSource));
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @return transactions on it: committed when the callback returns, rolled back when it throws
     */
    public static TransactionTemplate transactions(DataSource dataSource) {
        return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
    }

    /**
     * @param connection a connection whose transaction the caller owns (commits, rolls back and closes)
     * @return a template running every statement on that connection, never closing it
     */
    public static JdbcTemplate on(Connection connection) {
        return template(new SingleConnectionDataSource(connection, true));
    }

    /**
     * @param e a failure of a template or a transaction
     * @return the driver's exception that caused it
     * @throws RuntimeException {@code e} itself when no {@link SQLException} caused it (a bug, not the database)
     */
    public static SQLException cause(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        throw e;
    }

    /**
     * An argument bound as {@link SqlTime#set} binds it: a {@code timestamptz} in UTC, a null as a null timestamp.
     *
     * @param instant a time, or null
     * @return the argument for a template
     */
    public static Object time(Instant instant) {
        return instant == null ? new SqlParameterValue(Types.TIMESTAMP_WITH_TIMEZONE, null)
                : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /**
     * @param value a text, or null
     * @return the argument for a template, a null bound as a null {@code varchar} (the type of a non-null text), not
     *     as a null of no type, which PgJDBC would have the server describe
     */
    public static SqlParameterValue text(String value) {
        return new SqlParameterValue(Types.VARCHAR, value);
    }

    /** @return {@code value} as an argument for a template, a null bound as a null {@code bigint} */
    public static SqlParameterValue bigint(Long value) {
        return new SqlParameterValue(Types.BIGINT, value);
    }

    /**
     * @param anchor a class whose package holds the statement, e.g. {@code ingest.DocumentIndex}
     * @param name the file's name in that package, e.g. {@code index-write.sql}
     * @return the statement, its whole-line comments ({@code --}) left out
     * @throws IllegalStateException when there is no such resource
     */
    public static String sql(Class<?> anchor, String name) {
        try (InputStream in = anchor.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no SQL resource " + name + " next to " + anchor.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(line -> !line.strip().startsWith("--"))
                    .collect(Collectors.joining("\n")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
