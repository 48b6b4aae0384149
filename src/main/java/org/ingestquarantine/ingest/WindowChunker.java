package org.ingestquarantine.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Greedy word windows: words are added to a chunk until it would pass {@code maxChars} characters or
 * {@code maxTokens} tokens (as the embedding model's own tokenizer counts them), with up to
 * {@code overlapWords} words of a chunk repeated at the start of the next, but never more than half of the
 * chunk's words, so neighbouring chunks are never near-duplicates. Page boundaries are kept as the chunk's
 * page range. A word longer than either limit (a long unbroken token: a URL, a hash, base64) is cut into
 * pieces that each fit both limits, cut by the tokenizer's count and not only by characters; every character
 * of every word lands in a chunk (only runs of whitespace are normalised to one space, NUL to a space).
 *
 * <p>Each page is tokenised once ({@link WordTokenCounter}: the tokens of every word, from one call of the
 * model's tokenizer with offsets), windows are cut on those counts, and each window is counted once more as a
 * whole to make sure (a tokenizer whose counts do not add up over words gets its window shrunk as before).
 */
public final class WindowChunker implements Chunker {

    /** Default characters per chunk. */
    public static final int DEFAULT_MAX_CHARS = 1_000;
    /** Default words repeated between neighbouring chunks. */
    public static final int DEFAULT_OVERLAP_WORDS = 20;

    private static final String NAME = "window";
    /** A word: a run of anything but whitespace, as {@code split("\\s+")} leaves them. */
    private static final Pattern WORD = Pattern.compile("\\S+");
    private static final int REVISION = 3;

    private final int maxChars;
    private final int maxTokens;
    private final int overlapWords;
    private final ToIntFunction<String> tokenCount;
    private final WordTokenCounter wordTokens;

    /**
     * Counts each word's tokens with {@code tokenCount}, one call per word; see the other constructor.
     *
     * @param maxChars most characters in a chunk, &gt; 0
     * @param maxTokens most tokens in a chunk, &gt; 0: the embedding model's context
     * @param overlapWords words repeated between chunks, ≥ 0
     * @param tokenCount counts tokens as the embedding model does
     */
    public WindowChunker(int maxChars, int maxTokens, int overlapWords, ToIntFunction<String> tokenCount) {
        this(maxChars, maxTokens, overlapWords, tokenCount, WordTokenCounter.eachWord(tokenCount));
    }

    /**
     * @param maxChars most characters in a chunk, &gt; 0
     * @param maxTokens most tokens in a chunk, &gt; 0: the embedding model's context
     * @param overlapWords words repeated between chunks, ≥ 0
     * @param tokenCount counts tokens as the embedding model does
     * @param wordTokens the same tokenizer's count for every word of a page, from one pass over the page
     */
    public WindowChunker(int maxChars, int maxTokens, int overlapWords, ToIntFunction<String> tokenCount,
                         WordTokenCounter wordTokens) {
        if (maxChars <= 0 || maxTokens <= 0 || overlapWords < 0) {
            throw new IllegalArgumentException("chunk limits must be positive: maxChars=" + maxChars
                    + ", maxTokens=" + maxTokens + ", overlapWords=" + overlapWords);
        }
        this.maxChars = maxChars;
        this.maxTokens = maxTokens;
        this.overlapWords = overlapWords;
        this.tokenCount = tokenCount;
        this.wordTokens = wordTokens;
    }

    @Override
    public String version() {
        return NAME + "-" + REVISION + "(" + maxChars + "c/" + maxTokens + "t/" + overlapWords + "o)";
    }

    @Override
    public List<TextChunk> chunk(List<String> pageTexts) {
        List<String> words = new ArrayList<>();
        List<Integer> pages = new ArrayList<>();
        List<Integer> tokens = new ArrayList<>();
        Matcher word = WORD.matcher("");
        for (int p = 0; p < pageTexts.size(); p++) {
            String text = pageTexts.get(p);
            if (text == null) {
                continue;
            }
            // PostgreSQL text cannot hold NUL; PDFs can yield it
            text = text.replace('\u0000', ' ');
            List<int[]> spans = new ArrayList<>();
            word.reset(text);
            while (word.find()) {
                spans.add(new int[] {word.start(), word.end()});
            }
            if (spans.isEmpty()) {
                continue;
            }
            int[] starts = spans.stream().mapToInt(a -> a[0]).toArray();
            int[] ends = spans.stream().mapToInt(a -> a[1]).toArray();
            int[] counts = wordTokens.counts(text, starts, ends);
            for (int w = 0; w < starts.length; w++) {
                String whole = text.substring(starts[w], ends[w]);
                List<String> pieces = pieces(whole);
                for (String piece : pieces) {
                    words.add(piece);
                    pages.add(p + 1);
                    tokens.add(pieces.size() == 1 ? counts[w] : tokenCount.applyAsInt(piece));
                }
            }
        }
        List<TextChunk> chunks = new ArrayList<>();
        int start = 0;
        while (start < words.size()) {
            int end = start;
            int chars = 0;
            int count = 0;
            while (end < words.size() && chars + words.get(end).length() + 1 <= maxChars + 1
                    && count + tokens.get(end) <= maxTokens) {
                chars += words.get(end).length() + 1;
                count += tokens.get(end);
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
            start = end - Math.min(overlapWords, (end - start) / 2);
        }
        return chunks;
    }

    /**
     * @param word a word without whitespace
     * @return the word itself when it fits both limits, else consecutive pieces of it that each do
     */
    private List<String> pieces(String word) {
        if (word.length() <= maxChars && !mayPassTokens(word)) {
            return List.of(word);
        }
        List<String> pieces = new ArrayList<>();
        int from = 0;
        while (from < word.length()) {
            int end = Math.max(boundary(word, Math.min(word.length(), from + maxChars)),
                    from + Character.charCount(word.codePointAt(from)));
            if (mayPassTokens(word.substring(from, end)) && tokenCount.applyAsInt(word.substring(from, end)) > maxTokens) {
                // the longest prefix within the token limit; at least one code point, whatever the tokenizer says
                int lo = from + 1;
                int hi = end;
                while (lo < hi) {
                    int mid = (lo + hi + 1) >>> 1;
                    if (tokenCount.applyAsInt(word.substring(from, boundary(word, mid))) <= maxTokens) {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                end = Math.max(boundary(word, lo), from + Character.charCount(word.codePointAt(from)));
            }
            pieces.add(word.substring(from, end));
            from = end;
        }
        return pieces;
    }

    /**
     * A tokenizer spends at most a few tokens per character (byte-level ones up to four per UTF-8 byte
     * sequence) plus its start and end markers; a shorter word is not worth counting.
     */
    private boolean mayPassTokens(String word) {
        return word.length() * 4L + 2 > maxTokens;
    }

    /** @return {@code end}, moved back one where it would split a surrogate pair */
    private static int boundary(String word, int end) {
        return end < word.length() && end > 0 && Character.isHighSurrogate(word.charAt(end - 1)) ? end - 1 : end;
    }
}
