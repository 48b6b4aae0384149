package org.ingestquarantine.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * A JDBC driver for URLs {@code jdbc:counting:<a real JDBC URL>} that hands out the real driver's connections
 * wrapped (JDK proxies) to count, client-side, what costs a trip to the server, per calling thread's name:
 * <ul>
 *   <li>{@code roundTrips}: every statement execution ({@code execute*}; a batch is one), every
 *       {@code commit}/{@code rollback} and every {@code isValid} (the pool's validation on borrow);</li>
 *   <li>{@code commits}: transactions that ended in a commit: a statement executed in auto-commit mode, or an
 *       explicit {@code commit()}.</li>
 * </ul>
 * A pgjdbc batch of up to a few hundred statements is sent in one round trip, so counting it as one is
 * exact for the batches the pipeline sends. Registered with {@link DriverManager} once, by {@link #install()}.
 */
public final class CountingDriver implements Driver {

    /** The URL prefix this driver answers. */
    public static final String PREFIX = "jdbc:counting:";

    /** Counts of one kind of thread. */
    public static final class Counts {
        public final LongAdder roundTrips = new LongAdder();
        public final LongAdder commits = new LongAdder();
        /** Statement texts executed, first 60 characters, with their number (for the report). */
        public final Map<String, LongAdder> statements = new ConcurrentHashMap<>();

        @Override
        public String toString() {
            Map<String, Long> sorted = new TreeMap<>();
            statements.forEach((k, v) -> sorted.put(k, v.sum()));
            return "roundTrips=" + roundTrips.sum() + " commits=" + commits.sum() + " " + sorted;
        }
    }

    private static final Map<String, Counts> BY_THREAD = new ConcurrentHashMap<>();
    private static volatile boolean installed;

    private CountingDriver() {
    }

    /** Registers the driver (once per JVM). */
    public static synchronized void install() throws SQLException {
        if (!installed) {
            DriverManager.registerDriver(new CountingDriver());
            installed = true;
        }
    }

    /** Forgets every count so far. */
    public static void reset() {
        BY_THREAD.clear();
    }

    /** @return counts by calling thread's name, digits replaced by {@code #} (so a pool's threads are one kind) */
    public static Map<String, Counts> byThread() {
        return Map.copyOf(BY_THREAD);
    }

    /**
     * @param excluded thread kinds (as in {@link #byThread()}) left out
     * @return round trips and commits of every other thread, summed: {@code [roundTrips, commits]}
     */
    public static long[] totalExcept(Set<String> excluded) {
        long trips = 0;
        long commits = 0;
        for (Map.Entry<String, Counts> e : BY_THREAD.entrySet()) {
            if (!excluded.contains(e.getKey())) {
                trips += e.getValue().roundTrips.sum();
                commits += e.getValue().commits.sum();
            }
        }
        return new long[] {trips, commits};
    }

    private static Counts here() {
        return BY_THREAD.computeIfAbsent(Thread.currentThread().getName().replaceAll("[0-9]+", "#"), k -> new Counts());
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        Connection real = DriverManager.getConnection("jdbc:" + url.substring(PREFIX.length()), info);
        return wrap(real);
    }

    private static Connection wrap(Connection real) {
        InvocationHandler h = new InvocationHandler() {
            @Override
            public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
                String name = m.getName();
                Object result;
                try {
                    result = m.invoke(real, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
                switch (name) {
                    case "commit" -> {
                        here().roundTrips.increment();
                        here().commits.increment();
                    }
                    case "rollback" -> here().roundTrips.increment();
                    case "isValid" -> {
                        here().roundTrips.increment();
                        here().statements.computeIfAbsent("<isValid>", k -> new LongAdder()).increment();
                    }
                    case "prepareStatement", "prepareCall" ->
                            result = statement((Statement) result, real, String.valueOf(args[0]));
                    case "createStatement" -> result = statement((Statement) result, real, null);
                    default -> {
                    }
                }
                return result;
            }
        };
        return (Connection) Proxy.newProxyInstance(CountingDriver.class.getClassLoader(), new Class<?>[] {Connection.class}, h);
    }

    private static Statement statement(Statement real, Connection connection, String sql) {
        Class<?> type = real instanceof CallableStatement ? CallableStatement.class
                : real instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        InvocationHandler h = (proxy, m, args) -> {
            Object result;
            try {
                result = m.invoke(real, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (m.getName().startsWith("execute")) {
                Counts c = here();
                c.roundTrips.increment();
                if (connection.getAutoCommit()) {
                    c.commits.increment();
                }
                String text = sql != null ? sql : args != null && args.length > 0 ? String.valueOf(args[0]) : "?";
                text = text.replaceAll("\\s+", " ").trim();
                c.statements.computeIfAbsent(text.substring(0, Math.min(60, text.length())), k -> new LongAdder())
                        .increment();
            }
            if (m.getName().equals("getConnection")) {
                return connection;
            }
            return result;
        };
        return (Statement) Proxy.newProxyInstance(CountingDriver.class.getClassLoader(), new Class<?>[] {type}, h);
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
