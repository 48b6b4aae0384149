package org.ingestquarantine.testsupport;

import java.util.List;
import org.ingestquarantine.ingest.Embedder;

/** Deterministic two-number vectors (a text's length, 1) and tokens counted as words: no model to load. */
public final class TwoDimensionEmbedder implements Embedder {
    @Override
    public String version() {
        return "two-dims-test";
    }

    @Override
    public int dimensions() {
        return 2;
    }

    @Override
    public int maxTokens() {
        return 256;
    }

    @Override
    public int countTokens(String text) {
        return text.split("\\s+").length;
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        return texts.stream().map(t -> new float[] {t.length(), 1}).toList();
    }
}
