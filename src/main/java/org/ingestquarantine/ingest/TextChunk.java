package org.ingestquarantine.ingest;

/**
 * One piece of a document's text, the unit that is embedded and searched.
 *
 * @param seq 0-based position in the document
 * @param text the text; document content, so never logged
 * @param pageFrom first 1-based page it draws on
 * @param pageTo last 1-based page it draws on
 */
public record TextChunk(int seq, String text, int pageFrom, int pageTo) {

    @Override
    public String toString() {
        return "TextChunk[seq=" + seq + ", chars=" + text.length() + ", pages=" + pageFrom + "-" + pageTo + "]";
    }
}
