package org.ingestquarantine.ingest;

import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;

/**
 * How many documents each source holds, as its connector last counted them: table {@code source_totals},
 * the known denominator of coverage. The folder connector knows its file count; an HTTP source that cannot
 * list its documents never writes one. Thread-safe; each call commits on its own.
 */
public final class SourceTotals {

    private final DataSource dataSource;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of {@code counted_at}
     */
    public SourceTotals(DataSource dataSource, Clock clock) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Sets the source's total, replacing the last count.
     *
     * @param source connector name
     * @param documents documents the source holds now, not negative
     * @param countedBy the connector's version, e.g. {@link FolderConnector#VERSION}
     * @param baseUri where the source's doc_ids resolve ({@code <baseUri><doc_id>}), e.g. the folder's
     *     {@code file:} URI ending in {@code /}; null if they do not
     * @throws IllegalArgumentException if {@code documents} is negative
     * @throws DatabaseAccessException if the database fails
     */
    public void record(String source, long documents, String countedBy, URI baseUri) {
        if (documents < 0) {
            throw new IllegalArgumentException("a source holds 0 or more documents, not " + documents);
        }
        String sql = """
                INSERT INTO source_totals (source, documents, counted_at, counted_by, base_uri) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (source) DO UPDATE SET documents = EXCLUDED.documents,
                    counted_at = EXCLUDED.counted_at, counted_by = EXCLUDED.counted_by, base_uri = EXCLUDED.base_uri
                """;
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, source);
            s.setLong(2, documents);
            SqlTime.set(s, 3, clock.instant().truncatedTo(ChronoUnit.MICROS));
            s.setString(4, countedBy);
            s.setString(5, baseUri == null ? null : baseUri.toString());
            s.executeUpdate();
        } catch (SQLException e) {
            throw new DatabaseAccessException("total of source " + source + " was not written ("
                    + SqlFailure.describe(e) + "); coverage keeps the last count", e);
        }
    }

    /**
     * @param source connector name
     * @return where its doc_ids resolve, as its connector last reported, empty if unknown
     * @throws DatabaseAccessException if the database fails
     */
    public Optional<URI> baseUri(String source) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT base_uri FROM source_totals WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getString(1) != null ? Optional.of(URI.create(rs.getString(1))) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new DatabaseAccessException("base URI of source " + source + " could not be read ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }

    /**
     * @param source connector name
     * @return the last count, empty if the source never reported one
     * @throws DatabaseAccessException if the database fails
     */
    public OptionalLong total(String source) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT documents FROM source_totals WHERE source = ?")) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
            }
        } catch (SQLException e) {
            throw new DatabaseAccessException("total of source " + source + " could not be read ("
                    + SqlFailure.describe(e) + "); retry when PostgreSQL answers again", e);
        }
    }
}
