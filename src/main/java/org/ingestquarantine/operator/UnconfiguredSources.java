package org.ingestquarantine.operator;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.pipeline.RecordKey;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Cleans a store an older version polluted: it recorded a message naming a source it did not configure under that
 * name, so producers chose rows, page rows and metric series. A source here is unconfigured when no operator named
 * it: not configured, no total ({@code source_totals}), no root an {@code ingest} recorded ({@code source_roots}),
 * no indexed document (only a configured source's documents were ever indexed), and not reserved (beginning with
 * {@value RecordKey#RESERVED_SOURCE_PREFIX}).
 *
 * <p>{@link #purge} re-keys, never deletes: each of those records moves to {@value RecordKey#INVALID_MESSAGES_SOURCE}
 * with doc_id {@value #PURGED_PREFIX}{@code <dlq_id>} (unique: no delivery key begins with it), its owner cleared;
 * its attempts, error, payload and stack trace stay as they were (its error message already named the source,
 * bounded). The summaries follow in the same statement (the record triggers of {@code V6__summaries.sql}).
 */
public final class UnconfiguredSources {

    /** Prefix of the doc_id of a record {@link #purge} moved; its dlq_id follows. */
    public static final String PURGED_PREFIX = "purged/";

    private static final String UNCONFIGURED = """
            left(q.source, 1) <> '%s' AND NOT (q.source = ANY (?))
                AND NOT EXISTS (SELECT 1 FROM source_totals t WHERE t.source = q.source)
                AND NOT EXISTS (SELECT 1 FROM source_roots r WHERE r.source = q.source)
                AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.source = q.source)
            """.formatted(RecordKey.RESERVED_SOURCE_PREFIX);

    private final JdbcTemplate jdbc;

    /** @param dataSource a pool on the migrated schema */
    public UnconfiguredSources(DataSource dataSource) {
        this.jdbc = OperatorSql.jdbc(Objects.requireNonNull(dataSource, "dataSource"));
    }

    /**
     * @param configured the sources this configuration names; at least one
     * @return each unconfigured source the records name, with its records, by source
     * @throws BadOperatorInputException when none is configured (every source would look unconfigured)
     * @throws DatabaseAccessException when the database fails
     */
    public Map<String, Long> find(Collection<String> configured) {
        requireSome(configured);
        Map<String, Long> found = new LinkedHashMap<>();
        try {
            jdbc.query("SELECT q.source, count(*) FROM quarantine q WHERE " + UNCONFIGURED
                    + " GROUP BY q.source ORDER BY 1", rs -> {
                        found.put(rs.getString(1), rs.getLong(2));
                    }, (Object) names(configured));
            return found;
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the unconfigured sources could not be read", e);
        }
    }

    /**
     * Re-keys every record of an unconfigured source under {@value RecordKey#INVALID_MESSAGES_SOURCE}, in one
     * transaction.
     *
     * @param configured the sources this configuration names; at least one
     * @return records moved
     * @throws BadOperatorInputException when none is configured; nothing written
     * @throws DatabaseAccessException when the database fails; nothing written
     */
    public int purge(Collection<String> configured) {
        requireSome(configured);
        try {
            return jdbc.update("UPDATE quarantine q SET source = ?, doc_id = ? || q.dlq_id, owner = NULL WHERE "
                    + UNCONFIGURED, RecordKey.INVALID_MESSAGES_SOURCE, PURGED_PREFIX, names(configured));
        } catch (DataAccessException e) {
            throw OperatorSql.failure("the records of unconfigured sources were not moved", e);
        }
    }

    private static void requireSome(Collection<String> configured) {
        if (configured.isEmpty()) {
            throw new BadOperatorInputException("no source is configured here, so every source would look"
                    + " unconfigured; run with the consumer's configuration (sources.<name>.*)");
        }
    }

    private static String[] names(Collection<String> configured) {
        return configured.toArray(new String[0]);
    }
}
