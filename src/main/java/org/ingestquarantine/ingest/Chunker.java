package org.ingestquarantine.ingest;

import java.util.List;

/** Splits page texts into chunks. Named and versioned: the version is stored with every document. */
public interface Chunker {

    /** @return name and version, e.g. {@code window-1} */
    String version();

    /**
     * @param pageTexts the text of each page in order, index 0 = page 1
     * @return the chunks in order; empty when there is no text
     */
    List<TextChunk> chunk(List<String> pageTexts);
}
