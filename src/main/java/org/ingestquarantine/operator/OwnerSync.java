package org.ingestquarantine.operator;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;

/**
 * Re-derives the owner of open records from configuration ({@code sources sync-owners}): the write path names a
 * record's owner ({@code sources.<name>.owner}) when it creates the record, so an owner configured later reaches
 * the backlog only through this. Only OPEN records change: a record an operator disposed with an explicit
 * {@code --owner} is closed and keeps that owner, as every closed record keeps the owner it was closed with. A
 * source whose owner is not configured is left as it is (an unset owner erases no team). One transaction. Thread-safe.
 */
public final class OwnerSync {

    private final DataSource dataSource;

    /** @param dataSource a pool on the migrated schema */
    public OwnerSync(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
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
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement s = c.prepareStatement("UPDATE quarantine SET owner = ? WHERE disposition = 'open'"
                    + " AND source = ? AND owner IS DISTINCT FROM ?")) {
                for (Map.Entry<String, String> e : new TreeMap<>(ownerBySource).entrySet()) {
                    s.setString(1, e.getValue().trim());
                    s.setString(2, e.getKey());
                    s.setString(3, e.getValue().trim());
                    changed.put(e.getKey(), s.executeUpdate());
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new DatabaseAccessException("owners were not re-derived (" + SqlFailure.describe(e)
                    + "); retry when PostgreSQL answers again", e);
        }
        return changed;
    }
}
