package org.ingestquarantine.ingest;

import java.util.List;

/** Turns chunk texts into vectors. */
public interface Embedder {

    /** @return model name and version, stored with every document */
    String version();

    /** @return the width of every vector this model returns */
    int dimensions();

    /**
     * @return the longest text the model embeds whole, in its own tokens (without markers it adds); the
     *     chunker's limit, and the embed stage refuses a longer chunk ({@code downstream_contract})
     */
    int maxTokens();

    /**
     * @param text an input
     * @return its length in the model's tokens
     */
    int countTokens(String text);

    /**
     * @param text a page's text
     * @param starts start offset of each word, ascending
     * @param ends end offset (exclusive) of each word
     * @return each word's tokens, as {@link #countTokens} counts them; by default one call of it per word
     */
    default int[] countTokensPerWord(String text, int[] starts, int[] ends) {
        return WordTokenCounter.eachWord(this::countTokens).counts(text, starts, ends);
    }

    /**
     * @param texts inputs, each within {@link #maxTokens()}
     * @return one vector per input, in order
     */
    List<float[]> embed(List<String> texts);
}
