package org.ingestquarantine.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.util.PGobject;

/**
 * A SQL text with named parameters in camel-sql's syntax ({@code :#name}), turned into JDBC's positional
 * form, so that one versioned SQL file serves both a {@code sql:} endpoint and Java code ({@code quarantine.RecordStatement}).
 * Line comments ({@code --}) are dropped.
 *
 * <p>A parameter written {@code CAST(:#name AS type)} has a declared type, and {@link #bind} sends it, null or
 * not, with the same PostgreSQL type on every execution. Without that, PgJDBC sends a null as "unspecified",
 * asks the server to describe the statement once it is prepared, and from then on (the result's row size being
 * unbounded once it returns a text column) sends an extra Sync and waits for its answer before every
 * execution: two round trips per statement instead of one (measured with JFR on bench/operator-bench).
 *
 * @param sql the statement with {@code ?} in place of each named parameter
 * @param names the parameter names, in order of their {@code ?}
 * @param types each parameter's declared type, lower case without its length ({@code text}, {@code bigint},
 *     {@code timestamptz}, ...), or null where the parameter has no {@code CAST(... AS type)}; same order
 */
public record NamedSql(String sql, List<String> names, List<String> types) {

    private static final Pattern NAMED = Pattern.compile(":#(\\w+)");
    /** {@code CAST(:#name AS type}, the type up to its length or the closing parenthesis. */
    private static final Pattern CAST = Pattern.compile("(?i)CAST\\(\\s*:#(\\w+)\\s+AS\\s+([a-z][a-z0-9 ]*?)\\s*[()]");

    public NamedSql {
        names = List.copyOf(names);
        types = java.util.Collections.unmodifiableList(new ArrayList<>(types));
        if (types.size() != names.size()) {
            throw new IllegalArgumentException(names.size() + " parameters but " + types.size() + " types");
        }
    }

    /**
     * @param resource a class-path resource, e.g. {@code sql/quarantine-record.sql}
     * @return its statement
     * @throws IllegalStateException when there is no such resource
     */
    public static NamedSql load(String resource) {
        try (InputStream in = NamedSql.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no SQL resource " + resource + " on the class path");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param text SQL with {@code :#name} parameters
     * @return its statement
     * @throws IllegalArgumentException when one name is cast to two different types
     */
    public static NamedSql parse(String text) {
        String withoutComments = text.replaceAll("(?m)--[^\\n]*$", "");
        Map<String, String> declared = new java.util.HashMap<>();
        Matcher cast = CAST.matcher(withoutComments);
        while (cast.find()) {
            String type = cast.group(2).toLowerCase(Locale.ROOT);
            String before = declared.putIfAbsent(cast.group(1), type);
            if (before != null && !before.equals(type)) {
                throw new IllegalArgumentException("parameter :#" + cast.group(1) + " is cast to both " + before
                        + " and " + type + "; one type per name");
            }
        }
        List<String> names = new ArrayList<>();
        List<String> types = new ArrayList<>();
        Matcher m = NAMED.matcher(withoutComments);
        StringBuilder sql = new StringBuilder();
        while (m.find()) {
            names.add(m.group(1));
            types.add(declared.get(m.group(1)));
            m.appendReplacement(sql, "?");
        }
        m.appendTail(sql);
        return new NamedSql(sql.toString().strip(), names, types);
    }

    /**
     * @param values a value per name (a missing name binds SQL NULL)
     * @return the positional arguments for {@link #sql()}
     */
    public Object[] args(Map<String, ?> values) {
        return names.stream().map(values::get).toArray();
    }

    /**
     * Binds every parameter of {@link #sql()} from {@code values}, a declared type with the same PostgreSQL type
     * whether the value is null or not: {@code text}, {@code char}, {@code varchar}, {@code json} and
     * {@code jsonb} as {@code varchar} (the statement's cast converts); {@code bigint} and {@code integer} from
     * any {@link Number}; {@code timestamptz} from an {@link OffsetDateTime} or an {@link Instant};
     * {@code bytea} from a {@code byte[]}. A parameter without a declared type, or whose value is of another
     * Java type, is bound with {@code setObject} (null: SQL NULL of no type).
     *
     * @param statement a statement prepared from {@link #sql()}
     * @param values a value per name (a missing name binds SQL NULL)
     * @throws SQLException when the driver refuses a value
     */
    public void bind(PreparedStatement statement, Map<String, ?> values) throws SQLException {
        for (int i = 0; i < names.size(); i++) {
            bind(statement, i + 1, types.get(i), values.get(names.get(i)));
        }
    }

    private static void bind(PreparedStatement s, int index, String type, Object value) throws SQLException {
        switch (type == null ? "" : type) {
            case "text", "char", "character", "varchar", "character varying", "json", "jsonb" -> {
                if (value == null || value instanceof String) {
                    s.setString(index, (String) value);  // null: setNull(VARCHAR), the type of a non-null string
                    return;
                }
            }
            case "bigint", "int8" -> {
                if (value == null) {
                    s.setNull(index, Types.BIGINT);
                    return;
                }
                if (value instanceof Number n) {
                    s.setLong(index, n.longValue());
                    return;
                }
            }
            case "integer", "int", "int4" -> {
                if (value == null) {
                    s.setNull(index, Types.INTEGER);
                    return;
                }
                if (value instanceof Number n) {
                    s.setInt(index, Math.toIntExact(n.longValue()));
                    return;
                }
            }
            case "timestamptz", "timestamp with time zone" -> {
                if (value == null) {
                    // PgJDBC's setNull sends any timestamp as "unspecified"; a typed null object keeps timestamptz
                    PGobject nullTimestamp = new PGobject();
                    nullTimestamp.setType("timestamptz");
                    s.setObject(index, nullTimestamp);
                    return;
                }
                if (value instanceof Instant instant) {
                    s.setObject(index, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));  // sent as timestamptz
                    return;
                }
                if (value instanceof OffsetDateTime) {
                    s.setObject(index, value);
                    return;
                }
            }
            case "bytea" -> {
                if (value == null || value instanceof byte[]) {
                    s.setBytes(index, (byte[]) value);  // null: setNull(VARBINARY), bytea like a non-null array
                    return;
                }
            }
            default -> {
            }
        }
        if (value == null) {
            s.setNull(index, Types.NULL);
        } else {
            s.setObject(index, value);
        }
    }
}
