package org.ingestquarantine.ingest;

/**
 * One chunk of a document, ready to index.
 *
 * @param seq position in the document, 0-based and unique within it
 * @param text the chunk's text (document content: never log it)
 * @param embedding its vector; width must equal the index's vector dimensions. Compared by reference.
 * @param pageFrom first page it covers, 1-based
 * @param pageTo last page it covers, at least {@code pageFrom}
 */
public record IndexedChunk(int seq, String text, float[] embedding, int pageFrom, int pageTo) {
}
