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
 * (measured with JFR, bench/operator-bench), and each parameter is bound with its declared type
 * ({@link NamedSql#bind}), so that the driver neither describes the statement nor then adds a round trip
 * before each execution. A body that is not a map, and a query using camel-sql's other
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
        @SuppressWarnings("unchecked")
        Map<String, ?> values = (Map<String, ?>) row;
        return new Bound(sql, values);
    }

    @Override
    public void populateStatement(PreparedStatement ps, Iterator<?> iterator, int expectedParams) throws SQLException {
        if (iterator instanceof Bound bound) {
            if (bound.sql.names().size() != expectedParams) {
                throw new SQLException("Number of parameters mismatch. Expected: " + expectedParams + ", was:"
                        + bound.sql.names().size());
            }
            bound.sql.bind(ps, bound.values);  // each parameter with its declared type (NamedSql.bind)
            return;
        }
        fallback.populateStatement(ps, iterator, expectedParams);
    }

    /**
     * A parsed statement's values, handed from {@link #createPopulateIterator} to {@link #populateStatement}; as an
     * iterator it yields the values in parameter order, as camel-sql's own strategy would.
     */
    private static final class Bound implements Iterator<Object> {
        private final NamedSql sql;
        private final Map<String, ?> values;
        private int next;

        Bound(NamedSql sql, Map<String, ?> values) {
            this.sql = sql;
            this.values = values;
        }

        @Override
        public boolean hasNext() {
            return next < sql.names().size();
        }

        @Override
        public Object next() {
            if (!hasNext()) {
                throw new java.util.NoSuchElementException();
            }
            return values.get(sql.names().get(next++));
        }
    }

    /** camel-sql hands the query over with its placeholder character ({@code #}) already turned into {@code ?}. */
    private static boolean simple(String query) {
        String named = query.replace(":?", ":#");
        return !named.contains(":#${") && !named.contains(":#in:");
    }
}
