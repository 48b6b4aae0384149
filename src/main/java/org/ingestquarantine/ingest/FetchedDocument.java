package org.ingestquarantine.ingest;

import java.nio.file.Path;
import java.time.Instant;

/**
 * A document's bytes as fetched, kept in a local work file until its outcome is committed.
 *
 * @param file the local copy the parser reads
 * @param bytes size in bytes
 * @param sha256 lower-case hex SHA-256 of the bytes
 * @param sourceVersion the version the source gave (etag), or the sha256 where it gives none
 * @param sourceUpdatedAt when the source last changed it, may be {@code null}
 * @param contentType the type recognised from the bytes, e.g. {@code application/pdf}
 */
public record FetchedDocument(Path file, long bytes, String sha256, String sourceVersion, Instant sourceUpdatedAt,
                              String contentType) {
}
