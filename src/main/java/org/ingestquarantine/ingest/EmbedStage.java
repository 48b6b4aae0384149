package org.ingestquarantine.ingest;

import java.util.ArrayList;
import java.util.List;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * Embeds every chunk, after checking the contract with the model: no chunk longer than the model's
 * context, every vector of the model's width. A breach is {@code downstream_contract}: our own output is
 * wrong, so retrying cannot help and it alerts.
 */
public final class EmbedStage {

    /** Chunks embedded per model call. */
    public static final int BATCH = 32;

    private final Embedder embedder;

    /** @param embedder the embedding model */
    public EmbedStage(Embedder embedder) {
        this.embedder = embedder;
    }

    /**
     * @param exchange the delivery, with {@link PipelineKeys#CHUNKS} holding {@link TextChunk}s; afterwards
     *     it holds {@link EmbeddedChunk}s
     * @throws DownstreamContractException with reason {@code chunk_too_long} or {@code vector_width}
     */
    @SuppressWarnings("unchecked")
    public void embed(Exchange exchange) {
        List<TextChunk> chunks = exchange.getProperty(PipelineKeys.CHUNKS, List.class);
        for (TextChunk c : chunks) {
            int tokens = embedder.countTokens(c.text());
            if (tokens > embedder.maxTokens()) {
                throw new DownstreamContractException("chunk_too_long", "chunk " + c.seq() + " has " + tokens
                        + " tokens, over the model's " + embedder.maxTokens() + "; fix the chunker's limits");
            }
        }
        List<EmbeddedChunk> out = new ArrayList<>(chunks.size());
        for (int from = 0; from < chunks.size(); from += BATCH) {
            List<TextChunk> batch = chunks.subList(from, Math.min(chunks.size(), from + BATCH));
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
        exchange.setProperty(PipelineKeys.CHUNKS, out);
    }

    /**
     * @param chunk the chunk
     * @param vector its embedding
     */
    public record EmbeddedChunk(TextChunk chunk, float[] vector) {
    }
}
