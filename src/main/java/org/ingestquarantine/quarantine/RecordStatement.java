package org.ingestquarantine.quarantine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Types;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.db.NamedSql;
import org.ingestquarantine.db.SpringJdbc;
import org.postgresql.util.PGobject;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;

/**
 * The statement that writes an evidence record, {@value QuarantineStore#RECORD_SQL}, run with Spring's
 * {@link NamedParameterJdbcTemplate}: the file's camel-sql parameters ({@code :#name}, which the quarantine route's
 * {@code sql:} endpoint runs) become Spring's ({@code :name}) once, at load, its comments left out.
 *
 * <p>Each parameter is bound with the type its {@code CAST(:#name AS type)} declares, null or not, so that PgJDBC
 * never sends a null of no type (it would have the server describe the statement, and from then on add a round
 * trip before each execution; see {@link NamedSql}, whose parse of the declared types this reuses, and which the
 * route's statement strategy binds by). Thread-safe.
 */
final class RecordStatement {

    private static final String UNIQUE_VIOLATION = "23505";

    private final String sql;
    /** Spring's SQL type per declared parameter; a {@code timestamptz} is absent (bound as a value, see below). */
    private final Map<String, Integer> sqlTypes = new HashMap<>();
    /** Parameters declared {@code timestamptz}: PgJDBC sends any null timestamp untyped, so a null is a typed object. */
    private final java.util.Set<String> timestamps = new java.util.HashSet<>();
    private final NamedParameterJdbcTemplate jdbc;

    RecordStatement(DataSource dataSource) {
        String text = withoutComments(load(QuarantineStore.RECORD_SQL));
        NamedSql declared = NamedSql.parse(text);
        for (int i = 0; i < declared.names().size(); i++) {
            String type = declared.types().get(i);
            String name = declared.names().get(i);
            switch (type == null ? "" : type) {
                case "text", "char", "character", "varchar", "character varying", "json", "jsonb" ->
                        sqlTypes.put(name, Types.VARCHAR);
                case "bigint", "int8" -> sqlTypes.put(name, Types.BIGINT);
                case "integer", "int", "int4" -> sqlTypes.put(name, Types.INTEGER);
                case "bytea" -> sqlTypes.put(name, Types.VARBINARY);
                case "timestamptz", "timestamp with time zone" -> timestamps.add(name);
                default -> {
                }
            }
        }
        this.sql = text.replaceAll(":#(\\w+)", ":$1").strip();
        this.jdbc = SpringJdbc.named(dataSource);
    }

    /**
     * Runs the statement once, and once more when a concurrent write of the same delivery won the race (unique
     * violation: the statement then sees it and writes nothing).
     *
     * @param row the named parameters, {@link QuarantineStore#evidenceRow}
     * @throws DataAccessException if the database fails; nothing was committed
     */
    void run(Map<String, Object> row) {
        MapSqlParameterSource params = parameters(row);
        try {
            jdbc.query(sql, params, (rs, n) -> rs.getString(1));
        } catch (DataAccessException e) {
            SQLException cause = SpringJdbc.cause(e);
            if (!UNIQUE_VIOLATION.equals(cause.getSQLState())) {
                throw e;
            }
            jdbc.query(sql, params, (rs, n) -> rs.getString(1));
        }
    }

    private MapSqlParameterSource parameters(Map<String, Object> row) {
        MapSqlParameterSource params = new MapSqlParameterSource(row);
        sqlTypes.forEach(params::registerSqlType);
        for (String name : timestamps) {
            if (row.get(name) == null) {
                params.addValue(name, nullTimestamp());
            }
        }
        return params;
    }

    private static PGobject nullTimestamp() {
        PGobject value = new PGobject();
        value.setType("timestamptz");
        return value;
    }

    private static String withoutComments(String text) {
        return text.replaceAll("(?m)--[^\\n]*$", "");
    }

    private static String load(String resource) {
        try (InputStream in = RecordStatement.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no SQL resource " + resource + " on the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
