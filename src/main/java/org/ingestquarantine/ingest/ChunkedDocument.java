package org.ingestquarantine.ingest;

import java.util.List;

/**
 * A parsed document cut into chunks: the body between the chunk and embed stages.
 *
 * @param pageCount real pages of the document
 * @param pagesLost 1-based numbers of the pages whose text could not be extracted
 * @param chunks its chunks, in order
 */
public record ChunkedDocument(int pageCount, List<Integer> pagesLost, List<TextChunk> chunks) {

    public ChunkedDocument {
        pagesLost = List.copyOf(pagesLost);
        chunks = List.copyOf(chunks);
    }

    /**
     * @param pageCount real pages of the document
     * @param chunks its chunks, in order; no page lost
     */
    public ChunkedDocument(int pageCount, List<TextChunk> chunks) {
        this(pageCount, List.of(), chunks);
    }
}
