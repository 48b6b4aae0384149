package org.ingestquarantine.ingest;

import java.util.List;

/**
 * A parsed document cut into chunks: the body between the chunk and embed stages.
 *
 * @param pageCount real pages of the document
 * @param chunks its chunks, in order
 */
public record ChunkedDocument(int pageCount, List<TextChunk> chunks) {

    public ChunkedDocument {
        chunks = List.copyOf(chunks);
    }
}
