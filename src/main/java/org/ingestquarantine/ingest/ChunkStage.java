package org.ingestquarantine.ingest;

import java.util.List;
import org.apache.camel.Exchange;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.PipelineKeys;

/** Splits the parsed pages into chunks with the configured {@link Chunker}. */
public final class ChunkStage {

    private final Chunker chunker;

    /** @param chunker the named, versioned chunker */
    public ChunkStage(Chunker chunker) {
        this.chunker = chunker;
    }

    /** @param exchange the delivery, with {@link PipelineKeys#PARSED} */
    public void chunk(Exchange exchange) {
        ParsedDocument parsed = exchange.getProperty(PipelineKeys.PARSED, ParsedDocument.class);
        List<TextChunk> chunks = chunker.chunk(parsed.pageTexts());
        exchange.setProperty(PipelineKeys.CHUNKS, chunks);
    }
}
