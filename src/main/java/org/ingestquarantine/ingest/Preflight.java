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
    private final long maxBytes;

    /**
     * @param connectors by URI scheme
     * @param maxBytes largest document accepted, bytes (property {@code ingest.max-bytes})
     */
    public Preflight(Map<String, SourceConnector> connectors, long maxBytes) {
        this.connectors = Map.copyOf(connectors);
        this.maxBytes = maxBytes;
    }

    /**
     * @param message the delivery's message
     * @return what the source says of the document (size, version)
     * @throws PermanentInputException for an unsupported scheme ({@code unsupported_uri}), an empty
     *     document ({@code empty}) or one over {@code ingest.max-bytes} ({@code too_large})
     * @throws IOException from the connector; a missing document is a {@link java.nio.file.NoSuchFileException}
     */
    public SourceHead check(IngestMessage message) throws IOException {
        SourceHead head = connectorFor(message).head(message.uri());
        if (head.contentLength() == 0) {
            throw new PermanentInputException("empty", "the document has 0 bytes");
        }
        if (head.contentLength() > maxBytes) {
            throw new PermanentInputException("too_large",
                    "the document has " + head.contentLength() + " bytes, over ingest.max-bytes=" + maxBytes);
        }
        return head;
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
