package org.ingestquarantine.ingest;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * Reads documents from one kind of source. HEAD before GET, so that a missing or oversized document
 * costs no download. Every read is checked first by the source's {@link UriGuard}
 * ({@link SourceAccess#guard(String)}), redirects included.
 */
public interface SourceConnector {

    /** @return the URI scheme this connector serves, e.g. {@code file} */
    String scheme();

    /** @return a version string stored as {@code connector_version} on evidence records */
    String version();

    /**
     * @param uri the document
     * @param guard the source's guard, asked before anything is read and on every redirect
     * @return what the source says about it
     * @throws java.nio.file.NoSuchFileException (or a connector's 404/410 equivalent) when it is gone
     * @throws org.ingestquarantine.failure.PermanentInputException with reason {@code uri_not_allowed} from
     *     the guard, or {@code invalid_uri} for a malformed URI
     * @throws IOException when the source cannot be asked
     */
    SourceHead head(URI uri, UriGuard guard) throws IOException;

    /**
     * Copies the document's bytes into {@code target}.
     *
     * @param uri the document
     * @param target the local file to write; its parent exists
     * @param maxBytes a document larger than this is refused
     * @param guard the source's guard, asked before anything is read and on every redirect
     * @return the fetched document
     * @throws org.ingestquarantine.failure.PermanentInputException with reason {@code too_large} when it grows
     *     past {@code maxBytes}, or the guard's refusal
     * @throws IOException when the bytes cannot be read
     */
    FetchedDocument fetch(URI uri, Path target, long maxBytes, UriGuard guard) throws IOException;
}
