package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.model.embedding.onnx.HuggingFaceTokenCountEstimator;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Ensures chunks respect both limits (long unbroken tokens included), keep page ranges, lose no character and never nearly repeat each other. */
class WindowChunkerTest {

    private static String words(String prefix, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            b.append(prefix).append(i).append(' ');
        }
        return b.toString();
    }

    @Test
    void shouldKeepEveryChunkWithinCharsAndTokens() {
        // one "token" per word
        WindowChunker chunker = new WindowChunker(200, 10, 2, t -> t.split(" ").length);
        List<TextChunk> chunks = chunker.chunk(List.of(words("alpha", 50), words("beta", 50)));
        assertThat(chunks).isNotEmpty();
        assertThat(chunks).allSatisfy(c -> {
            assertThat(c.text().length()).isLessThanOrEqualTo(200);
            assertThat(c.text().split(" ").length).isLessThanOrEqualTo(10);
        });
        assertThat(chunks.get(0).pageFrom()).isEqualTo(1);
        assertThat(chunks.get(chunks.size() - 1).pageTo()).isEqualTo(2);
        String all = String.join(" ", chunks.stream().map(TextChunk::text).toList());
        for (int i = 0; i < 50; i++) {
            assertThat(all).contains("alpha" + i + " ").contains("beta" + i);
        }
    }

    @Test
    void shouldReturnNoChunkForNoText() {
        assertThat(new WindowChunker(100, 100, 0, String::length).chunk(List.of("  ", "\n"))).isEmpty();
    }

    @Test
    void shouldNameItsLimitsInItsVersion() {
        assertThat(new WindowChunker(1000, 256, 20, String::length).version()).isEqualTo("window-3(1000c/256t/20o)");
    }

    @Test
    void shouldSplitA1200CharacterTokenByTheModelsTokensSoEveryChunkFits() {
        HuggingFaceTokenCountEstimator tokenizer = new HuggingFaceTokenCountEstimator();
        String token = base64ish(1_200);
        String page = words("clause", 40) + token + " " + words("term", 40);
        WindowChunker chunker = new WindowChunker(1_000, MiniLmEmbedder.MAX_TOKENS, 20, tokenizer::estimateTokenCountInText);

        List<TextChunk> chunks = chunker.chunk(List.of(page));

        assertThat(chunks).allSatisfy(c -> {
            assertThat(tokenizer.estimateTokenCountInText(c.text())).isLessThanOrEqualTo(MiniLmEmbedder.MAX_TOKENS);
            assertThat(c.text().length()).isLessThanOrEqualTo(1_000);
        });
        // a character-only cut at 1,000 would leave a piece of several hundred tokens
        assertThat(tokenizer.estimateTokenCountInText(token.substring(0, 1_000))).isGreaterThan(MiniLmEmbedder.MAX_TOKENS);
        WindowChunker noOverlap = new WindowChunker(1_000, MiniLmEmbedder.MAX_TOKENS, 0, tokenizer::estimateTokenCountInText);
        assertThat(String.join("", noOverlap.chunk(List.of(page)).stream().map(c -> c.text().replace(" ", "")).toList()))
                .isEqualTo(page.replace(" ", ""));
    }

    @Test
    void shouldDropNoCharacterOfAWordLongerThanMaxChars() {
        String longWord = "x".repeat(450) + "END";
        WindowChunker chunker = new WindowChunker(100, 1_000, 0, String::length);
        List<TextChunk> chunks = chunker.chunk(List.of("before " + longWord + " after"));
        assertThat(String.join("", chunks.stream().map(c -> c.text().replace(" ", "")).toList()))
                .isEqualTo("before" + longWord + "after");
        assertThat(chunks).allSatisfy(c -> assertThat(c.text().length()).isLessThanOrEqualTo(100));
    }

    @Test
    void shouldNeverMakeNearDuplicateChunksWhenTheTokenLimitShrinksThem() {
        // words of 5 tokens each: the token limit allows 3 words, the overlap asks for 20
        WindowChunker chunker = new WindowChunker(1_000, 15, 20, t -> t.split(" ").length * 5);
        List<TextChunk> chunks = chunker.chunk(List.of(words("w", 60)));
        assertThat(chunks).hasSizeLessThanOrEqualTo(60);
        for (int i = 1; i < chunks.size(); i++) {
            List<String> previous = List.of(chunks.get(i - 1).text().split(" "));
            List<String> shared = new ArrayList<>(List.of(chunks.get(i).text().split(" ")));
            shared.retainAll(previous);
            assertThat(shared.size()).as("words chunk %d repeats from chunk %d", i, i - 1).isLessThanOrEqualTo(previous.size() / 2);
        }
    }

    private static String base64ish(int length) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        Random random = new Random(9);
        StringBuilder b = new StringBuilder();
        while (b.length() < length) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }
}
