package org.ingestquarantine.ingest;

import java.util.List;

/**
 * A chunked document with a vector per chunk: the body between the embed and index stages.
 *
 * @param pageCount real pages of the document
 * @param pagesLost 1-based numbers of the pages whose text could not be extracted
 * @param chunks its chunks with their vectors, in order
 */
public record EmbeddedDocument(int pageCount, List<Integer> pagesLost, List<EmbeddedChunk> chunks) {

    public EmbeddedDocument {
        pagesLost = List.copyOf(pagesLost);
        chunks = List.copyOf(chunks);
    }

    /**
     * @param pageCount real pages of the document
     * @param chunks its chunks with their vectors, in order; no page lost
     */
    public EmbeddedDocument(int pageCount, List<EmbeddedChunk> chunks) {
        this(pageCount, List.of(), chunks);
    }

    /**
     * @param chunk the chunk
     * @param vector its embedding, of the model's width
     */
    public record EmbeddedChunk(TextChunk chunk, float[] vector) {
    }
}
