package org.ingestquarantine.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The pipeline's PostgreSQL connection pool (HikariCP), with the schema migrated by Flyway
 * ({@code classpath:db/migration}) before it is handed out. Flyway validates the history before it migrates: an
 * applied script whose checksum differs from the bundled one, a failed migration, or a bundled one missing below the
 * newest applied one is refused ({@link DatabaseUnavailableException}, naming Flyway's reason); a database a newer
 * version of this application migrated ({@code *:future}, Flyway's default) is used as it is.
 *
 * <p>Bounds:
 * <ul>
 *   <li>{@value #CONNECT_TIMEOUT_PROPERTY}: how long a caller waits for a connection, in milliseconds (its
 *       default in {@code application.properties}, read by the caller). Short on purpose: an outage fails fast (the
 *       caller's circuit breaker pauses the consumer) instead of hanging. HikariCP's floor is 250 ms.</li>
 *   <li>socket timeout {@value #SOCKET_TIMEOUT_SECONDS} s: a statement on a connection whose server stopped
 *       answering fails after this long.</li>
 *   <li>pool size {@value #MAX_POOL_SIZE} connections.</li>
 * </ul>
 * After the server comes back, the pool replaces broken connections by itself; no restart is needed. A
 * connection is checked when it is borrowed only if it was idle longer than HikariCP's
 * {@code com.zaxxer.hikari.aliveBypassWindowMs} (500 ms by default): a check is a round trip (JDBC4
 * {@code isValid} on PostgreSQL), and a message that paid one per borrow paid more for checks than for its work
 * (issue 12). The first statement that fails for a lost connection (a restart faster than that window) evicts
 * every pooled connection ({@link EvictAllOnConnectionLoss}), so one caller sees the failure, not one per
 * pooled connection; the failure goes to the consumer's circuit breaker, and once the database answers again
 * {@link #reachableAfterOutage()} replaces every connection opened before the outage.
 */
public final class Database implements AutoCloseable {

    /** Property naming the connect timeout in milliseconds. */
    public static final String CONNECT_TIMEOUT_PROPERTY = "db.connect-timeout-ms";
    /** The connect timeout of {@link #open(String, String, String)}, for tests and tools without properties, ms. */
    private static final long TOOLS_CONNECT_TIMEOUT_MS = 2000;
    /** Property naming the JDBC URL (used in the error message only; the caller reads its own config). */
    public static final String URL_PROPERTY = "db.url";
    /** Socket (read) timeout of every connection, seconds. */
    public static final int SOCKET_TIMEOUT_SECONDS = 30;
    /** Where the migrations are, Flyway's location. */
    private static final String MIGRATIONS = "classpath:db/migration";
    /** Maximum pooled connections. */
    public static final int MAX_POOL_SIZE = 5;

    private final HikariDataSource dataSource;
    private final boolean owned;

    private Database(HikariDataSource dataSource) {
        this(dataSource, true);
    }

    private Database(HikariDataSource dataSource, boolean owned) {
        this.dataSource = dataSource;
        this.owned = owned;
    }

    /**
     * The database over a pool its host made and migrated (Spring Boot's {@code spring.datasource.*} and Flyway),
     * with this class's policy of evicting every connection on a connection loss unless the pool has one.
     * Closing it leaves the pool open: its host closes it.
     *
     * @param pool a HikariCP pool not started yet, or started without an exception override
     * @return the database over it
     */
    public static Database over(HikariDataSource pool) {
        if (pool.getExceptionOverride() == null && pool.getExceptionOverrideClassName() == null) {
            pool.setExceptionOverride(new EvictAllOnConnectionLoss(pool::getHikariPoolMXBean));
        }
        return new Database(pool, false);
    }

    /**
     * Opens a pool with a connect timeout of {@value #TOOLS_CONNECT_TIMEOUT_MS} ms and migrates the schema: for tests
     * and tools; the application waits {@value #CONNECT_TIMEOUT_PROPERTY}.
     *
     * @see #open(String, String, String, Duration)
     */
    public static Database open(String jdbcUrl, String user, String password) {
        return open(jdbcUrl, user, password, Duration.ofMillis(TOOLS_CONNECT_TIMEOUT_MS));
    }

    /**
     * Opens a pool and migrates the schema to the latest version.
     *
     * @param jdbcUrl e.g. {@code jdbc:postgresql://localhost:5432/postgres}
     * @param user database user
     * @param password database password, may be empty
     * @param connectTimeout how long to wait for a connection; positive, at least 250 ms is used
     * @return the open database; close it to close the pool
     * @throws DatabaseUnavailableException if the server cannot be reached or the migration fails; its
     *         message is one line naming the URL, the reason and what to do
     * @throws IllegalArgumentException if {@code connectTimeout} is not positive
     */
    public static Database open(String jdbcUrl, String user, String password, Duration connectTimeout) {
        if (connectTimeout.isZero() || connectTimeout.isNegative()) {
            throw new IllegalArgumentException(CONNECT_TIMEOUT_PROPERTY + " must be positive, was "
                    + connectTimeout.toMillis() + " ms");
        }
        HikariDataSource pool;
        try {
            HikariConfig config = config(jdbcUrl, user, password, connectTimeout);
            var built = new java.util.concurrent.atomic.AtomicReference<HikariDataSource>();
            config.setExceptionOverride(new EvictAllOnConnectionLoss(
                    () -> built.get() == null ? null : built.get().getHikariPoolMXBean()));
            pool = new HikariDataSource(config);
            built.set(pool);
        } catch (RuntimeException e) {
            throw new DatabaseUnavailableException("PostgreSQL at " + jdbcUrl + " is unreachable: "
                    + rootMessage(e) + "; start it or set " + URL_PROPERTY, e);
        }
        try {
            Flyway.configure()
                    .dataSource(pool)
                    .locations(MIGRATIONS)
                    .validateOnMigrate(true) // Flyway's validation first: nothing runs on a history it refuses
                    .ignoreMigrationPatterns("*:future") // a newer version's migrations: the schema works as it is
                    .load()
                    .migrate();
        } catch (FlywayException e) {
            pool.close();
            throw new DatabaseUnavailableException("PostgreSQL at " + jdbcUrl + " could not be migrated: "
                    + rootMessage(e) + "; check that the schema was created by this application", e);
        }
        return new Database(pool);
    }

    private static HikariConfig config(String jdbcUrl, String user, String password, Duration connectTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        configurePool(config, connectTimeout);
        return config;
    }

    /**
     * Gives a pool this class's bounds (name, size, connect, validation and socket timeouts) without touching its
     * URL or credentials: a host's pool (Spring Boot's) gets them before its own keys are applied over them.
     *
     * @param config the pool's configuration, not started yet
     * @param connectTimeout how long to wait for a connection; at least 250 ms is used
     */
    public static void configurePool(HikariConfig config, Duration connectTimeout) {
        long millis = Math.max(250, connectTimeout.toMillis());
        config.setPoolName("ingest-db");
        config.setMaximumPoolSize(MAX_POOL_SIZE);
        config.setConnectionTimeout(millis);
        config.setValidationTimeout(Math.min(millis, 1000));
        // Fail at construction if the first connection cannot be made within the connect timeout.
        config.setInitializationFailTimeout(millis);
        config.addDataSourceProperty("connectTimeout", Long.toString(Math.max(1, (millis + 999) / 1000)));
        config.addDataSourceProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_SECONDS));
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 32; depth++) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return (message == null ? root.getClass().getSimpleName() : message).replace('\n', ' ');
    }

    /** @return the pooled data source; valid until {@link #close()} */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * @return whether the database answers a validity check within 1 s now; never throws
     */
    public boolean isReachable() {
        try (java.sql.Connection c = dataSource.getConnection()) {
            if (c.isValid(1)) {
                return true;
            }
            // a broken connection would be handed out again to the next probe: out of the pool with it
            dataSource.evictConnection(c);
            return false;
        } catch (java.sql.SQLException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The probe of a consumer held after a database failure (circuit breaker): as {@link #isReachable()}, and
     * when the database answers, every pooled connection opened before is replaced as soon as it is idle
     * (HikariCP soft eviction), so that no connection broken by the outage is handed out unchecked afterwards.
     *
     * @return whether the database answers a validity check within 1 s now; never throws
     */
    public boolean reachableAfterOutage() {
        if (!isReachable()) {
            return false;
        }
        var pool = dataSource.getHikariPoolMXBean();
        if (pool != null) {
            pool.softEvictConnections();
        }
        return true;
    }

    /** Closes the pool, unless its host made it ({@link #over}). */
    @Override
    public void close() {
        if (owned) {
            dataSource.close();
        }
    }
}
