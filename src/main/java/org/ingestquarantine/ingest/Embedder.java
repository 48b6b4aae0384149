package org.ingestquarantine.ingest;

import java.util.List;

/** Turns chunk texts into vectors. */
public interface Embedder {

    /** @return model name and version, stored with every document */
    String version();

    /** @return the width of every vector this model returns */
    int dimensions();

    /** @return the longest input the model takes, in its own tokens */
    int maxTokens();

    /**
     * @param text an input
     * @return its length in the model's tokens
     */
    int countTokens(String text);

    /**
     * @param texts inputs, each within {@link #maxTokens()}
     * @return one vector per input, in order
     */
    List<float[]> embed(List<String> texts);
}
