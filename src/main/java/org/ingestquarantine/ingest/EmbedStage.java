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

    /**
     * @param embedder the embedding model; it batches the chunks itself (with those of other documents in
     *     flight, see {@link MiniLmEmbedder})
     */
    public EmbedStage(Embedder embedder) {
        this.embedder = embedder;
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
        List<float[]> vectors = embedder.embed(chunks.stream().map(TextChunk::text).toList());
        for (int i = 0; i < chunks.size(); i++) {
            float[] v = vectors.get(i);
            if (v.length != embedder.dimensions()) {
                throw new DownstreamContractException("vector_width", "the model returned " + v.length
                        + " dimensions, the index expects " + embedder.dimensions());
            }
            out.add(new EmbeddedChunk(chunks.get(i), v));
        }
        return new EmbeddedDocument(chunked.pageCount(), chunked.pagesLost(), out);
    }
}
