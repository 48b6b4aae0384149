package org.ingestquarantine.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Greedy word windows: words are added to a chunk until it would pass {@code maxChars} characters or
 * {@code maxTokens} tokens (as the embedding model's own tokenizer counts them), with the last
 * {@code overlapWords} words repeated at the start of the next chunk. Page boundaries are kept as the
 * chunk's page range. A single word longer than the limits becomes a chunk of its own, cut to fit.
 */
public final class WindowChunker implements Chunker {

    /** Default characters per chunk. */
    public static final int DEFAULT_MAX_CHARS = 1_000;
    /** Default words repeated between neighbouring chunks. */
    public static final int DEFAULT_OVERLAP_WORDS = 20;

    private static final String NAME = "window";
    private static final int REVISION = 1;

    private final int maxChars;
    private final int maxTokens;
    private final int overlapWords;
    private final ToIntFunction<String> tokenCount;

    /**
     * @param maxChars most characters in a chunk, &gt; 0
     * @param maxTokens most tokens in a chunk, &gt; 0: the embedding model's context
     * @param overlapWords words repeated between chunks, ≥ 0
     * @param tokenCount counts tokens as the embedding model does
     */
    public WindowChunker(int maxChars, int maxTokens, int overlapWords, ToIntFunction<String> tokenCount) {
        if (maxChars <= 0 || maxTokens <= 0 || overlapWords < 0) {
            throw new IllegalArgumentException("chunk limits must be positive: maxChars=" + maxChars
                    + ", maxTokens=" + maxTokens + ", overlapWords=" + overlapWords);
        }
        this.maxChars = maxChars;
        this.maxTokens = maxTokens;
        this.overlapWords = overlapWords;
        this.tokenCount = tokenCount;
    }

    @Override
    public String version() {
        return NAME + "-" + REVISION + "(" + maxChars + "c/" + maxTokens + "t/" + overlapWords + "o)";
    }

    @Override
    public List<TextChunk> chunk(List<String> pageTexts) {
        List<String> words = new ArrayList<>();
        List<Integer> pages = new ArrayList<>();
        for (int p = 0; p < pageTexts.size(); p++) {
            String text = pageTexts.get(p);
            if (text == null) {
                continue;
            }
            // PostgreSQL text cannot hold NUL; PDFs can yield it
            for (String w : text.replace('\u0000', ' ').split("\\s+")) {
                if (!w.isEmpty()) {
                    words.add(w.length() > maxChars ? w.substring(0, maxChars) : w);
                    pages.add(p + 1);
                }
            }
        }
        List<TextChunk> chunks = new ArrayList<>();
        int start = 0;
        while (start < words.size()) {
            int end = start;
            int chars = 0;
            while (end < words.size() && chars + words.get(end).length() + 1 <= maxChars + 1) {
                chars += words.get(end).length() + 1;
                end++;
            }
            end = Math.max(end, start + 1);
            String text = String.join(" ", words.subList(start, end));
            while (end - start > 1 && tokenCount.applyAsInt(text) > maxTokens) {
                end = start + Math.max(1, (end - start) * 3 / 4);
                text = String.join(" ", words.subList(start, end));
            }
            chunks.add(new TextChunk(chunks.size(), text, pages.get(start), pages.get(end - 1)));
            if (end >= words.size()) {
                break;
            }
            start = Math.max(start + 1, end - overlapWords);
        }
        return chunks;
    }
}
