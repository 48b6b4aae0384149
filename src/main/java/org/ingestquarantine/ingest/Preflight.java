package org.ingestquarantine.ingest;

import java.io.IOException;
import java.util.Map;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.pipeline.IngestMessage;

/**
 * HEAD before GET: a document that is gone, empty or too large is settled without downloading it.
 *
 * @see SourceConnector#head
 */
public final class Preflight {

    private final Map<String, SourceConnector> connectors;
    private final SourceAccess access;
    private final long maxBytes;

    /**
     * @param connectors by URI scheme
     * @param access where each source's documents may live; asked before anything is read
     * @param maxBytes largest document accepted, bytes (property {@code ingest.max-bytes})
     */
    public Preflight(Map<String, SourceConnector> connectors, SourceAccess access, long maxBytes) {
        this.connectors = Map.copyOf(connectors);
        this.access = access;
        this.maxBytes = maxBytes;
    }

    /**
     * @param message the delivery's message
     * @return what the source says of the document (size, version)
     * @throws PermanentInputException for an unknown source ({@code unknown_source}), a URI outside the
     *     source's roots ({@code uri_not_allowed}), an unsupported scheme ({@code unsupported_uri}); a
     *     {@link HeadRefusalException}, carrying the source's answer, for ({@code unsupported_uri}), an empty
     *     document ({@code empty}) or one over {@code ingest.max-bytes} ({@code too_large})
     * @throws IOException from the connector; a missing document is a {@link java.nio.file.NoSuchFileException}
     */
    public SourceHead check(IngestMessage message) throws IOException {
        UriGuard guard = access.guard(message.source());
        SourceHead head = connectorFor(message).head(message.uri(), guard);
        if (head.contentLength() == 0) {
            throw new HeadRefusalException("empty", "the document has 0 bytes", head);
        }
        if (head.contentLength() > maxBytes) {
            throw new HeadRefusalException("too_large",
                    "the document has " + head.contentLength() + " bytes, over ingest.max-bytes=" + maxBytes, head);
        }
        return head;
    }

    /**
     * Asks the message's source whether it may read the message's URI, before anything is read: the URI a
     * quarantine record keeps is only ever one this admitted.
     *
     * @param message the delivery's message
     * @return its URI as the message named it (not the guard's resolved form: a later re-fetch is checked again)
     * @throws PermanentInputException {@code unknown_source}, {@code uri_not_allowed} or {@code invalid_uri}
     * @throws IOException when the check cannot look (a host name that does not resolve)
     */
    public String admit(IngestMessage message) throws IOException {
        guardFor(message).check(message.uri());
        return message.uri().toString();
    }

    /**
     * @param message a message
     * @return the guard of its source
     * @throws PermanentInputException with reason {@code unknown_source} when the source is not configured
     */
    public UriGuard guardFor(IngestMessage message) {
        return access.guard(message.source());
    }

    /**
     * @param message a message
     * @return the connector for its URI's scheme
     * @throws PermanentInputException with reason {@code unsupported_uri} when there is none
     */
    public SourceConnector connectorFor(IngestMessage message) {
        SourceConnector c = connectors.get(message.uri().getScheme());
        if (c == null) {
            throw new PermanentInputException("unsupported_uri",
                    "no connector for URI scheme '" + message.uri().getScheme() + "'; supported: " + connectors.keySet());
        }
        return c;
    }
}
