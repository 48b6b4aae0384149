package org.ingestquarantine.ingest;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.HuggingFaceTokenCountEstimator;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.util.List;

/**
 * all-MiniLM-L6-v2 in-process (ONNX, via langchain4j), offline: 384-dimensional vectors. The model was
 * trained with inputs of at most {@value #MAX_TOKENS} word pieces (sentence-transformers model card,
 * {@code max_seq_length}); longer inputs would be truncated, so the chunker keeps below it.
 */
public final class MiniLmEmbedder implements Embedder {

    /** Vector width of all-MiniLM-L6-v2. */
    public static final int DIMENSIONS = 384;
    /** Input limit in word pieces, from the model card. */
    public static final int MAX_TOKENS = 256;

    private final AllMiniLmL6V2EmbeddingModel model = new AllMiniLmL6V2EmbeddingModel();
    private final HuggingFaceTokenCountEstimator tokens = new HuggingFaceTokenCountEstimator();

    @Override
    public String version() {
        return "all-minilm-l6-v2/langchain4j-1.19.0";
    }

    @Override
    public int dimensions() {
        return DIMENSIONS;
    }

    @Override
    public int maxTokens() {
        return MAX_TOKENS;
    }

    @Override
    public int countTokens(String text) {
        return tokens.estimateTokenCountInText(text);
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        List<TextSegment> segments = texts.stream().map(TextSegment::from).toList();
        return model.embedAll(segments).content().stream().map(Embedding::vector).toList();
    }
}
