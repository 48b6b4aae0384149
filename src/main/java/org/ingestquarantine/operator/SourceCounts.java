package org.ingestquarantine.operator;

import java.io.IOException;
import java.util.Objects;
import org.ingestquarantine.ingest.SourceListing;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * The operator's two ways to give a source its total, behind {@code sources count}, {@code sources set-total} and
 * the API: list it now ({@link SourceListing}: for a folder source, later an S3 one), or record a total a producer
 * or an operator states (for an HTTP or producer-owned source, which cannot be listed). Either replaces the last
 * total, whichever way that was obtained, and says how and when ({@code source_totals.obtained_by}, V19).
 * Thread-safe.
 */
public final class SourceCounts {

    private final OperatorService service;
    private final SourceListing listing;
    private final SourceTotals totals;

    /**
     * @param service for the known sources
     * @param listing the listers of this process's configured sources
     * @param totals where totals go
     */
    public SourceCounts(OperatorService service, SourceListing listing, SourceTotals totals) {
        this.service = Objects.requireNonNull(service, "service");
        this.listing = Objects.requireNonNull(listing, "listing");
        this.totals = Objects.requireNonNull(totals, "totals");
    }

    /**
     * Lists the source now and records the count as its total ({@code listed}).
     *
     * @param source a configured source with roots a lister walks ({@code sources.<name>.file-roots})
     * @return the total recorded
     * @throws BadOperatorInputException if the source is unknown, or known but has no roots to list (the message
     *     says to state its total instead); nothing written
     * @throws ListingFailedException if a root cannot be read or the listing's bound is exceeded; nothing written
     */
    public SourceTotals.Total count(String source) {
        if (!listing.canList(source)) {
            service.requireKnownSource(source);
            String name = RecordRef.bounded(source);
            throw new BadOperatorInputException("source '" + name + "' cannot be listed: this configuration gives it"
                    + " no sources." + name + ".file-roots or .s3-allow; state its total instead (sources set-total " + name
                    + " N)");
        }
        try {
            return listing.list(source).orElseThrow();
        } catch (IOException | IllegalStateException e) {
            throw new ListingFailedException("source '" + RecordRef.bounded(source) + "' could not be listed ("
                    + e.getClass().getSimpleName() + ": " + RecordRef.bounded(String.valueOf(e.getMessage()))
                    + "); it keeps its last total", e);
        }
    }

    /**
     * Records a total someone who knows it states ({@code stated}).
     *
     * @param source a known source (configured, or named by the data), not the reserved one
     * @param documents the documents it holds, 0 or more
     * @param statedBy who states it, recorded as {@code counted_by}
     * @return the total recorded
     * @throws BadOperatorInputException if the number is negative or the source unknown or reserved; nothing
     *     written
     */
    public SourceTotals.Total state(String source, long documents, String statedBy) {
        if (documents < 0) {
            throw new BadOperatorInputException("a source's total is 0 or more documents, not " + documents);
        }
        if (source != null && RecordKey.isReservedSource(source)) {
            throw new BadOperatorInputException("'" + RecordRef.bounded(source) + "' is reserved for messages that"
                    + " cannot be read; it has no total");
        }
        if (source == null || source.isBlank()) {
            throw new BadOperatorInputException("name a source");
        }
        service.requireKnownSource(source);
        totals.record(source, documents, SourceTotals.Obtained.STATED,
                statedBy == null || statedBy.isBlank() ? "unknown" : RecordRef.bounded(statedBy), null);
        return totals.find(source).orElseThrow();
    }

    /** A listing that failed: a root unreadable, or more documents than the lister's bound. Nothing was written. */
    public static final class ListingFailedException extends IllegalStateException {

        ListingFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
