package org.ingestquarantine.operator;

import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Re-derives the owner of open records from configuration ({@code sources sync-owners}): the write path names a
 * record's owner ({@code sources.<name>.owner}) when it creates the record, so an owner configured later reaches
 * the backlog only through this. Only OPEN records change: a record an operator disposed with an explicit
 * {@code --owner} is closed and keeps that owner, as every closed record keeps the owner it was closed with. A
 * source whose owner is not configured is left as it is (an unset owner erases no team). One transaction. Thread-safe.
 */
public final class OwnerSync {

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;

    /** @param dataSource a pool on the migrated schema */
    public OwnerSync(DataSource dataSource) {
        this.jdbc = OperatorSql.jdbc(Objects.requireNonNull(dataSource, "dataSource"));
        this.transactions = OperatorSql.transactions(dataSource);
    }

    /**
     * @param ownerBySource each configured source's owner
     * @return per source (sorted), the open records whose owner was changed to the configured one, 0 included
     * @throws BadOperatorInputException if an owner is not a valid label ({@link OperatorLabels#require})
     * @throws DatabaseAccessException if the database fails; nothing was changed
     */
    public SortedMap<String, Integer> sync(Map<String, String> ownerBySource) {
        ownerBySource.forEach((source, owner) -> OperatorLabels.require(owner, "sources." + source + ".owner"));
        SortedMap<String, Integer> changed = new TreeMap<>();
        try {
            transactions.executeWithoutResult(tx -> {
                for (Map.Entry<String, String> e : new TreeMap<>(ownerBySource).entrySet()) {
                    changed.put(e.getKey(), jdbc.update("UPDATE quarantine SET owner = ? WHERE disposition = 'open'"
                            + " AND source = ? AND owner IS DISTINCT FROM ?", e.getValue().trim(), e.getKey(),
                            e.getValue().trim()));
                }
            });
        } catch (DataAccessException | TransactionException e) {
            throw OperatorSql.failure("owners were not re-derived", e);
        }
        return changed;
    }
}
