package org.ingestquarantine.ingest;

import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.ingest.EmbeddedDocument.EmbeddedChunk;

/**
 * Embeds every chunk, after checking the contract with the model: no chunk longer than the model's
 * context, every vector of the model's width. A breach is {@code downstream_contract}: our own output is
 * wrong, so retrying cannot help and it alerts.
 */
public final class EmbedStage {

    private final Embedder embedder;
    private final int batchSize;

    /**
     * @param embedder the embedding model
     * @param batchSize chunks per model call (property {@code embed.batch-chunks}), ≥ 1
     */
    public EmbedStage(Embedder embedder, int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("embed.batch-chunks must be >= 1, was " + batchSize);
        }
        this.embedder = embedder;
        this.batchSize = batchSize;
    }

    /**
     * @param chunked the document's chunks
     * @return the chunks with their vectors
     * @throws DownstreamContractException with reason {@code chunk_too_long} or {@code vector_width}
     */
    public EmbeddedDocument embed(ChunkedDocument chunked) {
        List<TextChunk> chunks = chunked.chunks();
        for (TextChunk c : chunks) {
            int tokens = embedder.countTokens(c.text());
            if (tokens > embedder.maxTokens()) {
                throw new DownstreamContractException("chunk_too_long", "chunk " + c.seq() + " has " + tokens
                        + " tokens, over the model's " + embedder.maxTokens() + "; fix the chunker's limits");
            }
        }
        List<EmbeddedChunk> out = new ArrayList<>(chunks.size());
        for (int from = 0; from < chunks.size(); from += batchSize) {
            List<TextChunk> batch = chunks.subList(from, Math.min(chunks.size(), from + batchSize));
            List<float[]> vectors = embedder.embed(batch.stream().map(TextChunk::text).toList());
            for (int i = 0; i < batch.size(); i++) {
                float[] v = vectors.get(i);
                if (v.length != embedder.dimensions()) {
                    throw new DownstreamContractException("vector_width", "the model returned " + v.length
                            + " dimensions, the index expects " + embedder.dimensions());
                }
                out.add(new EmbeddedChunk(batch.get(i), v));
            }
        }
        return new EmbeddedDocument(chunked.pageCount(), chunked.pagesLost(), out);
    }
}
