package org.ingestquarantine.ingest;

import org.ingestquarantine.parse.ParsedDocument;

/** Splits the parsed pages into chunks with the configured {@link Chunker}. */
public final class ChunkStage {

    private final Chunker chunker;

    /** @param chunker the named, versioned chunker */
    public ChunkStage(Chunker chunker) {
        this.chunker = chunker;
    }

    /**
     * @param parsed the parser's result
     * @return its chunks
     */
    public ChunkedDocument chunk(ParsedDocument parsed) {
        return new ChunkedDocument(parsed.pageCount(), parsed.pagesLost(), chunker.chunk(parsed.pageTexts()));
    }
}
