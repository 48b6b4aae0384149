package org.ingestquarantine.ingest;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The folder each source was last given as its only root on an {@code ingest <folder>} command line
 * (table {@code source_roots}), so that a later {@code drain} in another process may read where that ingest
 * read. Only the ingest command writes it, from its own command line; nothing a message carries reaches it,
 * so a producer cannot widen where a source may read. Readers use a row only for a source their own
 * configuration does not name ({@link #withRecordedRoots}). Thread-safe; each call commits on its own.
 */
public final class SourceRoots {

    /** {@code configured_by} of the rows the ingest command writes. */
    public static final String INGEST_COMMAND = "ingest-command";

    private static final String UPSERT = SpringJdbc.sql(SourceRoots.class, "source-root-upsert.sql");

    private final JdbcTemplate jdbc;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of {@code configured_at}
     */
    public SourceRoots(DataSource dataSource, Clock clock) {
        this.jdbc = SpringJdbc.template(Objects.requireNonNull(dataSource, "dataSource"));
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records the folder an ingest command configured as the source's only root, replacing an earlier one.
     *
     * @param source source name
     * @param root the folder, absolute
     * @param configuredBy who configured it, e.g. {@link #INGEST_COMMAND}
     * @throws IllegalArgumentException if {@code root} is not absolute
     * @throws DatabaseAccessException if the database fails
     */
    public void record(String source, Path root, String configuredBy) {
        if (!root.isAbsolute()) {
            throw new IllegalArgumentException("a source root is an absolute folder, not " + root);
        }
        try {
            jdbc.update(UPSERT, source, root.toString(),
                    SpringJdbc.time(clock.instant().truncatedTo(ChronoUnit.MICROS)), SpringJdbc.text(configuredBy));
        } catch (DataAccessException e) {
            SQLException cause = SpringJdbc.cause(e);
            throw new DatabaseAccessException("root of source " + source + " was not recorded ("
                    + SqlFailure.describe(cause) + "); a later drain would not know where the source's files are",
                    cause);
        }
    }

    /**
     * @return source → the folder last recorded for it, by source
     * @throws DatabaseAccessException if the database fails
     */
    public Map<String, Path> all() {
        Map<String, Path> roots = new TreeMap<>();
        try {
            jdbc.query("SELECT source, file_root FROM source_roots", rs -> {
                roots.put(rs.getString(1), Path.of(rs.getString(2)));
            });
            return roots;
        } catch (DataAccessException e) {
            SQLException cause = SpringJdbc.cause(e);
            throw new DatabaseAccessException("recorded source roots could not be read ("
                    + SqlFailure.describe(cause) + "); retry when PostgreSQL answers again", cause);
        }
    }

    /**
     * The recorded roots {@link #withRecordedRoots} leaves out because their folder is gone (deleted or moved since
     * the ingest recorded it), for sources the configuration does not name: such a source reads as not configured,
     * and this says why.
     *
     * @param configured the {@code sources.<name>.*} properties of the process's configuration
     * @param recorded source → recorded root, as {@link #all()} returns
     * @return source → its recorded folder that no longer exists, by source
     */
    public static Map<String, Path> missing(java.util.Properties configured, Map<String, Path> recorded) {
        Map<String, Path> missing = new TreeMap<>();
        recorded.forEach((source, root) -> {
            if (!named(configured, source) && !java.nio.file.Files.isDirectory(root)) {
                missing.put(source, root);
            }
        });
        return missing;
    }

    private static boolean named(java.util.Properties configured, String source) {
        String prefix = SourceAccess.PREFIX + source + ".";
        return configured.stringPropertyNames().stream()
                .anyMatch(k -> k.equals(prefix + "file-roots") || k.equals(prefix + "http-allow"));
    }

    /**
     * The sources' trust properties with the recorded roots added for sources they do not configure: a source
     * with any {@code sources.<name>.file-roots} or {@code .http-allow} property keeps exactly its configuration.
     * A recorded folder that no longer exists is left out (the source then stays unknown; {@link #missing} names it).
     *
     * @param configured the {@code sources.<name>.*} properties of the process's configuration
     * @param recorded source → recorded root, as {@link #all()} returns
     * @return the properties to build {@link SourceAccess} from; {@code configured} is not changed
     */
    public static java.util.Properties withRecordedRoots(java.util.Properties configured, Map<String, Path> recorded) {
        java.util.Properties merged = new java.util.Properties();
        configured.stringPropertyNames().forEach(k -> merged.setProperty(k, configured.getProperty(k)));
        recorded.forEach((source, root) -> {
            if (!named(configured, source) && java.nio.file.Files.isDirectory(root)) {
                merged.setProperty(SourceAccess.PREFIX + source + ".file-roots", root.toString());
            }
        });
        return merged;
    }
}
