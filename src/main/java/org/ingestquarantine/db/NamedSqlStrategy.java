package org.ingestquarantine.db;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.component.sql.DefaultSqlPrepareStatementStrategy;
import org.apache.camel.component.sql.SqlPrepareStatementStrategy;

/**
 * camel-sql's statement preparation for a {@code sql:} endpoint whose body is a map of named parameters
 * ({@code :#name}): each distinct query text is parsed once ({@link NamedSql}) instead of by regular
 * expressions on every exchange, which cost more CPU than the statement itself on the quarantine's write path
 * (measured with JFR, bench/operator-bench). A body that is not a map, and a query using camel-sql's other
 * forms ({@code :#${expression}}, {@code :#in:}), go to camel-sql's own strategy. Thread-safe.
 */
public final class NamedSqlStrategy implements SqlPrepareStatementStrategy {

    private final DefaultSqlPrepareStatementStrategy fallback = new DefaultSqlPrepareStatementStrategy();
    private final Map<String, NamedSql> parsed = new ConcurrentHashMap<>();

    @Override
    public String prepareQuery(String query, boolean allowNamedParameters, Exchange exchange) throws SQLException {
        if (!allowNamedParameters || !simple(query)) {
            return fallback.prepareQuery(query, allowNamedParameters, exchange);
        }
        return parsed.computeIfAbsent(query, q -> NamedSql.parse(q.replace(":?", ":#"))).sql();
    }

    @Override
    public Iterator<?> createPopulateIterator(String query, String preparedQuery, int expectedParams,
                                              Exchange exchange, Object value) throws SQLException {
        NamedSql sql = parsed.get(query);
        if (sql == null || !(value instanceof Map<?, ?> row)) {
            return fallback.createPopulateIterator(query, preparedQuery, expectedParams, exchange, value);
        }
        for (String name : sql.names()) {
            if (!row.containsKey(name)) {
                throw new SQLException("no value for parameter :#" + name + " in the body of the sql: endpoint");
            }
        }
        return sql.names().stream().map(row::get).iterator();
    }

    @Override
    public void populateStatement(PreparedStatement ps, Iterator<?> iterator, int expectedParams) throws SQLException {
        fallback.populateStatement(ps, iterator, expectedParams);
    }

    /** camel-sql hands the query over with its placeholder character ({@code #}) already turned into {@code ?}. */
    private static boolean simple(String query) {
        String named = query.replace(":?", ":#");
        return !named.contains(":#${") && !named.contains(":#in:");
    }
}
