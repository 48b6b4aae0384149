package org.ingestquarantine.db;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A SQL text with named parameters in camel-sql's syntax ({@code :#name}), turned into JDBC's positional
 * form, so that one versioned SQL file serves both a {@code sql:} endpoint and Java code ({@link Jdbc}).
 * Line comments ({@code --}) are dropped.
 *
 * @param sql the statement with {@code ?} in place of each named parameter
 * @param names the parameter names, in order of their {@code ?}
 */
public record NamedSql(String sql, List<String> names) {

    private static final Pattern NAMED = Pattern.compile(":#(\\w+)");

    public NamedSql {
        names = List.copyOf(names);
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
     */
    public static NamedSql parse(String text) {
        String withoutComments = text.replaceAll("(?m)--[^\\n]*$", "");
        List<String> names = new ArrayList<>();
        Matcher m = NAMED.matcher(withoutComments);
        StringBuilder sql = new StringBuilder();
        while (m.find()) {
            names.add(m.group(1));
            m.appendReplacement(sql, "?");
        }
        m.appendTail(sql);
        return new NamedSql(sql.toString().strip(), names);
    }

    /**
     * @param values a value per name (a missing name binds SQL NULL)
     * @return the positional arguments for {@link #sql()}
     */
    public Object[] args(Map<String, ?> values) {
        return names.stream().map(values::get).toArray();
    }
}
