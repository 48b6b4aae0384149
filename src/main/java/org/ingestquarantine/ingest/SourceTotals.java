package org.ingestquarantine.ingest;

import java.net.URI;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SpringJdbc;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.db.SqlTime;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.ResultSetExtractor;

/**
 * How many documents each source holds, as last obtained: table {@code source_totals}, the known denominator of
 * coverage. A total is obtained one of three ways ({@link Obtained}): the file count of an {@code ingest <folder>},
 * a listing of the source's configured roots ({@link SourceListing}), or stated by a producer or an operator who
 * knows it ({@code sources set-total}); each row says which, when and by whom. A source with none has no coverage.
 * Thread-safe; each call commits on its own.
 */
public final class SourceTotals {

    /** How a total was obtained: {@code source_totals.obtained_by} (V19). */
    public enum Obtained {
        /** Counted by a {@link SourceLister} over the source's configured roots. */
        LISTED("listed"),
        /** Said by a producer or an operator who knows it. */
        STATED("stated"),
        /** The file count of an {@code ingest <folder>}. */
        INGEST("ingest");

        private final String code;

        Obtained(String code) {
            this.code = code;
        }

        /** @return the stored code */
        public String code() {
            return code;
        }
    }

    /**
     * One source's total and how it was obtained.
     *
     * @param source source name
     * @param documents documents it holds
     * @param obtainedBy {@link Obtained#code()}: listed, stated or ingest
     * @param countedAt when
     * @param countedBy the lister's version (e.g. {@link FolderConnector#VERSION}) or who stated it
     */
    public record Total(String source, long documents, String obtainedBy, Instant countedAt, String countedBy) {
    }

    private static final String UPSERT = SpringJdbc.sql(SourceTotals.class, "source-total-upsert.sql");

    private final JdbcTemplate jdbc;
    private final Clock clock;

    /**
     * @param dataSource a pool on the migrated schema
     * @param clock source of {@code counted_at}
     */
    public SourceTotals(DataSource dataSource, Clock clock) {
        this.jdbc = SpringJdbc.template(Objects.requireNonNull(dataSource, "dataSource"));
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Sets the source's total as {@code ingest <folder>} counted it ({@link Obtained#INGEST}), replacing the last.
     *
     * @param source connector name
     * @param documents documents the source holds now, not negative
     * @param countedBy the connector's version, e.g. {@link FolderConnector#VERSION}
     * @param baseUri where the source's doc_ids resolve, or null (see {@link #record(String, long, Obtained,
     *     String, URI)})
     * @throws IllegalArgumentException if {@code documents} is negative
     * @throws DatabaseAccessException if the database fails
     */
    public void record(String source, long documents, String countedBy, URI baseUri) {
        record(source, documents, Obtained.INGEST, countedBy, baseUri);
    }

    /**
     * Sets the source's total, replacing the last one however that was obtained.
     *
     * @param source connector name
     * @param documents documents the source holds now, not negative
     * @param obtained how the total was obtained
     * @param countedBy the lister's or connector's version, e.g. {@link FolderConnector#VERSION}, or who stated it
     * @param baseUri where the source's doc_ids resolve ({@code <baseUri><doc_id>}), e.g. the folder's
     *     {@code file:} URI ending in {@code /}; null keeps the one recorded before (a listing or a stated
     *     total does not know it, and must not make a later drain forget where an ingest read)
     * @throws IllegalArgumentException if {@code documents} is negative
     * @throws DatabaseAccessException if the database fails
     */
    public void record(String source, long documents, Obtained obtained, String countedBy, URI baseUri) {
        if (documents < 0) {
            throw new IllegalArgumentException("a source holds 0 or more documents, not " + documents);
        }
        try {
            jdbc.update(UPSERT, source, documents, SpringJdbc.time(clock.instant().truncatedTo(ChronoUnit.MICROS)),
                    SpringJdbc.text(countedBy), SpringJdbc.text(baseUri == null ? null : baseUri.toString()),
                    obtained.code());
        } catch (DataAccessException e) {
            SQLException cause = SpringJdbc.cause(e);
            throw new DatabaseAccessException("total of source " + source + " was not written ("
                    + SqlFailure.describe(cause) + "); coverage keeps the last count", cause);
        }
    }

    /**
     * @param source connector name
     * @return where its doc_ids resolve, as its connector last reported, empty if unknown
     * @throws DatabaseAccessException if the database fails
     */
    public Optional<URI> baseUri(String source) {
        try {
            return jdbc.query("SELECT base_uri FROM source_totals WHERE source = ?",
                    (ResultSetExtractor<Optional<URI>>) rs -> rs.next() && rs.getString(1) != null
                            ? Optional.of(URI.create(rs.getString(1))) : Optional.empty(), source);
        } catch (DataAccessException e) {
            throw readFailure("base URI of source " + source, e);
        }
    }

    /**
     * @param source connector name
     * @return its total and how it was obtained, empty if it has none
     * @throws DatabaseAccessException if the database fails
     */
    public Optional<Total> find(String source) {
        try {
            return jdbc.query("SELECT documents, obtained_by, counted_at, counted_by FROM source_totals"
                    + " WHERE source = ?", (ResultSetExtractor<Optional<Total>>) rs -> rs.next()
                    ? Optional.of(new Total(source, rs.getLong(1), rs.getString(2), SqlTime.get(rs, "counted_at"),
                            rs.getString(4))) : Optional.empty(), source);
        } catch (DataAccessException e) {
            throw readFailure("total of source " + source, e);
        }
    }

    /**
     * @param source connector name
     * @return the last count, empty if the source never reported one
     * @throws DatabaseAccessException if the database fails
     */
    public OptionalLong total(String source) {
        try {
            return jdbc.query("SELECT documents FROM source_totals WHERE source = ?",
                    (ResultSetExtractor<OptionalLong>) rs -> rs.next() ? OptionalLong.of(rs.getLong(1))
                            : OptionalLong.empty(), source);
        } catch (DataAccessException e) {
            throw readFailure("total of source " + source, e);
        }
    }

    private static DatabaseAccessException readFailure(String what, DataAccessException e) {
        SQLException cause = SpringJdbc.cause(e);
        return new DatabaseAccessException(what + " could not be read (" + SqlFailure.describe(cause)
                + "); retry when PostgreSQL answers again", cause);
    }
}
