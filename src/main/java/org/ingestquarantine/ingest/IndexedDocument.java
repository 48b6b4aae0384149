package org.ingestquarantine.ingest;

import java.time.Instant;
import java.util.List;

/**
 * A parsed, chunked and embedded document, ready for {@link DocumentIndex#index(IndexedDocument)}.
 *
 * @param source connector name
 * @param docId document id within the source
 * @param sourceVersion the source's version of the bytes (etag; the content sha256 for the folder connector)
 * @param sourceUpdatedAt when the source last changed the document; null if the source does not say (then no
 *        staleness check is possible)
 * @param contentSha256 lower-case hex SHA-256 of the fetched bytes, may be null
 * @param parserVersion parser name and version
 * @param chunkerVersion chunker name and version
 * @param embedderVersion embedding model name and version
 * @param pageCount pages in the document
 * @param chunks at least one chunk, each with a distinct {@code seq}
 * @param pagesLost 1-based numbers of the pages whose text could not be extracted (stored with the row)
 */
public record IndexedDocument(String source, String docId, String sourceVersion, Instant sourceUpdatedAt,
                              String contentSha256, String parserVersion, String chunkerVersion,
                              String embedderVersion, int pageCount, List<IndexedChunk> chunks,
                              List<Integer> pagesLost) {

    public IndexedDocument {
        chunks = List.copyOf(chunks);
        pagesLost = List.copyOf(pagesLost);
    }

    /** A document none of whose pages was lost; see the canonical constructor for the parameters. */
    public IndexedDocument(String source, String docId, String sourceVersion, Instant sourceUpdatedAt,
                           String contentSha256, String parserVersion, String chunkerVersion,
                           String embedderVersion, int pageCount, List<IndexedChunk> chunks) {
        this(source, docId, sourceVersion, sourceUpdatedAt, contentSha256, parserVersion, chunkerVersion,
                embedderVersion, pageCount, chunks, List.of());
    }

    /**
     * @param lost 1-based numbers of the pages whose text could not be extracted
     * @return this document with those pages recorded as lost
     */
    public IndexedDocument withPagesLost(List<Integer> lost) {
        return new IndexedDocument(source, docId, sourceVersion, sourceUpdatedAt, contentSha256, parserVersion,
                chunkerVersion, embedderVersion, pageCount, chunks, lost);
    }
}
