package org.ingestquarantine.delivery;

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
import org.ingestquarantine.db.SpringJdbc;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;

/**
 * What the delivery package's Spring JDBC code shares: a {@link JdbcTemplate} that translates a failure without
 * asking the database anything (the default translator reads the database's metadata on a first failure: one more
 * connection attempt while PostgreSQL is down), arguments bound as the stores bind them (db/SpringJdbc), the driver's
 * {@link SQLException} taken back out of Spring's exception (callers keep their SQLSTATE and message), and SQL
 * resources next to the code ({@code org/ingestquarantine/delivery/*.sql}).
 */
final class SpringSql {

    private static final String RESOURCES = "org/ingestquarantine/delivery/";

    private SpringSql() {
    }

    /**
     * @param dataSource a pool on the migrated schema
     * @return a template on it: one connection per call, auto-commit as the pool gives it
     */
    static JdbcTemplate template(DataSource dataSource) {
        return SpringJdbc.template(java.util.Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * @param name a file in {@code src/main/resources/org/ingestquarantine/delivery/}
     * @return its text; load it once (a constant)
     * @throws IllegalStateException when there is no such resource
     */
    static String load(String name) {
        try (InputStream in = SpringSql.class.getClassLoader().getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("no SQL resource " + RESOURCES + name + " on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param args positional arguments
     * @return them as the stores bind them (db/SpringJdbc): null as SQL NULL of no type ({@link Types#NULL}, never a
     *     metadata read to find one), an {@link Instant} as {@code timestamptz}, anything else as itself
     */
    static Object[] args(Object... args) {
        Object[] bound = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            bound[i] = value(args[i]);
        }
        return bound;
    }

    /**
     * @param namesAndValues name, value, name, value...
     * @return named parameters, bound as {@link #args}
     */
    static MapSqlParameterSource params(Object... namesAndValues) {
        MapSqlParameterSource params = new MapSqlParameterSource();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            params.addValue((String) namesAndValues[i], value(namesAndValues[i + 1]));
        }
        return params;
    }

    private static Object value(Object a) {
        if (a == null) {
            return new SqlParameterValue(Types.NULL, null);
        }
        return a instanceof Instant instant ? OffsetDateTime.ofInstant(instant, ZoneOffset.UTC) : a;
    }

    /**
     * @param e what the template threw
     * @return the driver's (or the pool's) exception it carries, as the stores throw it
     * @throws DataAccessException {@code e} itself when it carries none (no statement failed: a bug of ours)
     */
    static SQLException sqlException(DataAccessException e) {
        return SpringJdbc.cause(e);
    }
}
