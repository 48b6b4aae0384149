package org.ingestquarantine.operator;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Spring JDBC as the operator's classes use it: {@link SpringJdbc}'s templates (failures translated from the driver's
 * SQLException alone, no metadata lookup that would ask an unreachable database for another connection), the
 * driver's exception found again under Spring's, statements kept in {@code .sql} resources beside the classes, and
 * {@code timestamptz} bound as as {@link org.ingestquarantine.db.SqlTime} binds it.
 */
final class OperatorSql {

    private OperatorSql() {
    }

    /** @return a template on {@code dataSource}, translating by the SQLException's class and SQLState only */
    static JdbcTemplate jdbc(DataSource dataSource) {
        return SpringJdbc.template(dataSource);
    }

    /** @return a named-parameter template on {@link #jdbc}'s template */
    static NamedParameterJdbcTemplate named(DataSource dataSource) {
        return SpringJdbc.named(dataSource);
    }

    /** @return transactions on {@code dataSource} at the database's default isolation (read committed) */
    static TransactionTemplate transactions(DataSource dataSource) {
        return SpringJdbc.transactions(dataSource);
    }

    /** @return transactions on {@code dataSource} at repeatable read (one snapshot for every statement) */
    static TransactionTemplate repeatableRead(DataSource dataSource) {
        TransactionTemplate t = transactions(dataSource);
        t.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        return t;
    }

    /** @return {@code instant} as a {@code timestamptz} parameter (UTC), SQL NULL for null */
    static SqlParameterValue time(Instant instant) {
        return new SqlParameterValue(Types.TIMESTAMP_WITH_TIMEZONE,
                instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
    }

    /**
     * @param e a Spring data access or transaction failure
     * @return the driver's (or the pool's) exception under it, or null when there is none
     */
    static SQLException sqlCause(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }

    /** @return {@link SqlFailure#describe} of the SQLException under {@code e}, or its class when there is none */
    static String describe(Throwable e) {
        SQLException sql = sqlCause(e);
        return sql != null ? SqlFailure.describe(sql) : e.getClass().getSimpleName();
    }

    /**
     * @param what what failed
     * @param e Spring's failure
     * @param next what to do next, e.g. "retry when PostgreSQL answers again"
     * @return the failure callers expect: its message {@code what (description); next}, its cause the driver's
     *     exception (Spring's when there is none)
     */
    static DatabaseAccessException failure(String what, RuntimeException e, String next) {
        SQLException sql = sqlCause(e);
        return new DatabaseAccessException(what + " (" + describe(e) + "); " + next, sql != null ? sql : e);
    }

    /** {@link #failure(String, RuntimeException, String)} that says to retry when PostgreSQL answers again. */
    static DatabaseAccessException failure(String what, RuntimeException e) {
        return failure(what, e, "retry when PostgreSQL answers again");
    }

    /**
     * @param name a resource in this package, e.g. {@code drain-start.sql}
     * @return its text
     * @throws IllegalStateException if it is missing (a build fault)
     */
    static String load(String name) {
        try (InputStream in = OperatorSql.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("statement " + name + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("statement " + name + " could not be read", e);
        }
    }
}
