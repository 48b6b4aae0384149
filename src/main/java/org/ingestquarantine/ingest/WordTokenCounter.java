package org.ingestquarantine.ingest;

import java.util.function.ToIntFunction;

/** Counts the tokens of every word of a text, as the embedding model's tokenizer splits the whole text. */
@FunctionalInterface
public interface WordTokenCounter {

    /**
     * @param text a page's text
     * @param starts start offset (UTF-16 index, inclusive) of each word, ascending
     * @param ends end offset (exclusive) of each word
     * @return the tokens of each word, without the model's start and end markers; same length as {@code starts}
     */
    int[] counts(String text, int[] starts, int[] ends);

    /**
     * @param tokenCount counts the tokens of one text
     * @return a counter calling {@code tokenCount} once per word
     */
    static WordTokenCounter eachWord(ToIntFunction<String> tokenCount) {
        return (text, starts, ends) -> {
            int[] counts = new int[starts.length];
            for (int i = 0; i < starts.length; i++) {
                counts[i] = tokenCount.applyAsInt(text.substring(starts[i], ends[i]));
            }
            return counts;
        };
    }
}
