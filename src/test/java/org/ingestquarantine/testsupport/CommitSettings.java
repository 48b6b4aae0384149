package org.ingestquarantine.testsupport;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource around a real one that tells, for every transaction its callers commit, the value of
 * {@code synchronous_commit} that commit ran with: read by {@code SHOW synchronous_commit} on the same connection
 * INSIDE the transaction, just before its commit. So a {@code SET LOCAL} (or {@code set_config(..., true)}) made by
 * the transaction's own statements is seen, and one that leaked into the session would show in the next one.
 *
 * <p>The real connection never runs in auto-commit: when a caller has auto-commit on, each of its statement
 * executions is followed by the reading and a commit, which is what auto-commit would have committed (pgjdbc reads
 * a result set whole without a fetch size, so it is complete before that commit). An explicit {@code commit()} is
 * preceded by the reading; {@code rollback()} and {@code close()} with work pending record nothing.
 */
public final class CommitSettings implements DataSource {

    /**
     * One commit.
     *
     * @param statements the statement texts the transaction ran, in order
     * @param synchronousCommit {@code SHOW synchronous_commit} just before it committed
     */
    public record Commit(List<String> statements, String synchronousCommit) {

        /** @return whether one of its statements contains {@code text} */
        public boolean ran(String text) {
            return statements.stream().anyMatch(s -> s.contains(text));
        }
    }

    private final DataSource real;
    private final List<Commit> commits = new CopyOnWriteArrayList<>();

    /** @param real the data source whose connections are wrapped */
    public CommitSettings(DataSource real) {
        this.real = real;
    }

    /** @return every commit so far, in order */
    public List<Commit> commits() {
        return List.copyOf(commits);
    }

    /**
     * @param text part of a statement
     * @return the commits of the transactions that ran it
     */
    public List<Commit> commitsOf(String text) {
        return commits.stream().filter(c -> c.ran(text)).toList();
    }

    /** Forgets the commits so far. */
    public void clear() {
        commits.clear();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(real.getConnection());
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return wrap(real.getConnection(user, password));
    }

    private Connection wrap(Connection connection) throws SQLException {
        boolean[] autoCommit = {connection.getAutoCommit()};
        connection.setAutoCommit(false);
        List<String> pending = new ArrayList<>();
        InvocationHandler h = (proxy, m, args) -> {
            switch (m.getName()) {
                case "getAutoCommit" -> {
                    return autoCommit[0];
                }
                case "setAutoCommit" -> {
                    boolean on = (Boolean) args[0];
                    if (on && !autoCommit[0] && !pending.isEmpty()) {
                        commit(connection, pending); // JDBC: switching auto-commit on commits the transaction
                    }
                    autoCommit[0] = on;
                    return null;
                }
                case "commit" -> {
                    commit(connection, pending);
                    return null;
                }
                case "rollback" -> {
                    if (args == null) {
                        pending.clear();
                    }
                    return invoke(connection, m, args);
                }
                case "close" -> {
                    if (!pending.isEmpty() || !autoCommit[0]) {
                        connection.rollback();
                    }
                    pending.clear();
                    connection.setAutoCommit(true);
                    return invoke(connection, m, args);
                }
                case "prepareStatement", "createStatement" -> {
                    Statement statement = (Statement) invoke(connection, m, args);
                    String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : null;
                    return statement(statement, (Connection) proxy, sql, pending, autoCommit, connection);
                }
                default -> {
                    return invoke(connection, m, args);
                }
            }
        };
        return (Connection) Proxy.newProxyInstance(CommitSettings.class.getClassLoader(),
                new Class<?>[] {Connection.class}, h);
    }

    private Statement statement(Statement statement, Connection proxyConnection, String sql, List<String> pending,
                                boolean[] autoCommit, Connection connection) {
        Class<?> type = statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().equals("getConnection")) {
                return proxyConnection;
            }
            if (!m.getName().startsWith("execute")) {
                return invoke(statement, m, args);
            }
            pending.add(sql != null ? sql : String.valueOf(args[0]));
            Object result;
            try {
                result = invoke(statement, m, args);
            } catch (SQLException e) {
                if (autoCommit[0]) {
                    pending.clear();
                    connection.rollback();
                }
                throw e;
            }
            if (autoCommit[0]) {
                commit(connection, pending);
            }
            return result;
        };
        return (Statement) Proxy.newProxyInstance(CommitSettings.class.getClassLoader(), new Class<?>[] {type}, h);
    }

    private void commit(Connection connection, List<String> pending) throws SQLException {
        String setting;
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
            rs.next();
            setting = rs.getString(1);
        }
        connection.commit();
        commits.add(new Commit(List.copyOf(pending), setting));
        pending.clear();
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger("org.ingestquarantine");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return real.isWrapperFor(iface);
    }
}
