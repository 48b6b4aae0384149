package org.ingestquarantine.ingest;

import java.io.IOException;

/**
 * Counts the documents a source holds by listing where its configuration says its documents live, so that
 * coverage has a denominator for a source fed by producers ({@code run}). One implementation per kind of root:
 * {@link FolderLister} walks {@code sources.<name>.file-roots}; an S3 lister would list the objects under
 * {@code sources.<name>.s3-allow}. A lister reads only what the operator configured, never what a message named,
 * and counts what its connector would accept as a document. {@link SourceListing} sums the listers that can list
 * a source and records the sum as a listed total.
 *
 * <p>Implementations are thread-safe and bounded (a listing that would exceed their bound fails, it is not cut).
 */
public interface SourceLister {

    /** @return stored as the total's {@code counted_by}, e.g. {@link FolderConnector#VERSION} */
    String version();

    /**
     * @param source a source name
     * @return whether the source has roots of this lister's kind (then {@link #count} may be asked)
     */
    boolean canList(String source);

    /**
     * @param source a source {@link #canList} accepts
     * @return the documents under its roots now, 0 or more
     * @throws IOException when a root cannot be read
     * @throws IllegalStateException when the listing exceeds the lister's bound; the message names the setting
     */
    long count(String source) throws IOException;
}
