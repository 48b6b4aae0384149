package org.ingestquarantine.ingest;

/**
 * The version of a document the index holds as searchable, as read when its delivery was admitted (one
 * statement with the attempt's open): what {@link IndexStage#isCurrent} compares a fetched document with.
 *
 * @param sourceVersion the source's version (etag or sha256) of the indexed bytes
 * @param parserVersion parser that made the index entry
 * @param chunkerVersion chunker that made it
 * @param embedderVersion embedder that made it
 */
public record IndexedVersion(String sourceVersion, String parserVersion, String chunkerVersion,
                             String embedderVersion) {
}
