package org.ingestquarantine.ingest;

import java.util.List;

/**
 * A chunked document with a vector per chunk: the body between the embed and index stages.
 *
 * @param pageCount real pages of the document
 * @param chunks its chunks with their vectors, in order
 */
public record EmbeddedDocument(int pageCount, List<EmbeddedChunk> chunks) {

    public EmbeddedDocument {
        chunks = List.copyOf(chunks);
    }

    /**
     * @param chunk the chunk
     * @param vector its embedding, of the model's width
     */
    public record EmbeddedChunk(TextChunk chunk, float[] vector) {
    }
}
