package org.ingestquarantine.ingest;

import java.time.Instant;

/**
 * What a source says about a document without sending its bytes (HTTP HEAD, a file's stat).
 *
 * @param contentLength size in bytes, or -1 when the source does not say
 * @param updatedAt when the source last changed it, may be {@code null}
 * @param etag the source's version tag, may be {@code null} (the folder connector has none before GET)
 */
public record SourceHead(long contentLength, Instant updatedAt, String etag) {
}
