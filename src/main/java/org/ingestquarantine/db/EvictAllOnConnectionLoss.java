package org.ingestquarantine.db;

import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.util.function.Supplier;

/**
 * HikariCP exception policy: a statement that fails because its connection was lost (SQLSTATE class 08,
 * connection exception, or 57P01–57P03, the server shut down or cannot accept connections now; PostgreSQL
 * appendix A "PostgreSQL Error Codes") soft-evicts EVERY pooled connection, not only the failing one.
 *
 * <p>Why: HikariCP checks a borrowed connection only if it was idle longer than its alive-bypass window (500 ms),
 * and a PostgreSQL restart that takes less than that leaves every pooled connection dead but unchecked. Left
 * alone, the pool hands each of them out once more, one failure per connection; with this policy the first
 * failure is the last one, and the next borrow gets a connection opened after the restart. Idle connections
 * are closed at once, borrowed ones when returned. The failing connection itself is evicted as HikariCP
 * decides ({@link Override#CONTINUE_EVICT}).
 */
final class EvictAllOnConnectionLoss implements SQLExceptionOverride {

    private final Supplier<HikariPoolMXBean> pool;

    /** @param pool the pool to evict; may supply {@code null} while the pool is still being built */
    EvictAllOnConnectionLoss(Supplier<HikariPoolMXBean> pool) {
        this.pool = pool;
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        if (isConnectionLoss(e.getSQLState())) {
            HikariPoolMXBean bean = pool.get();
            if (bean != null) {
                bean.softEvictConnections();
            }
        }
        return Override.CONTINUE_EVICT;
    }

    /**
     * @param sqlState a SQLSTATE, may be {@code null}
     * @return whether it says the connection is gone: class 08, or 57P01 (admin shutdown), 57P02 (crash
     *         shutdown), 57P03 (cannot connect now)
     */
    static boolean isConnectionLoss(String sqlState) {
        return sqlState != null
                && (sqlState.startsWith("08") || sqlState.equals("57P01") || sqlState.equals("57P02")
                        || sqlState.equals("57P03"));
    }
}
