package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Ensures chunks respect both limits, keep page ranges, and lose no word. */
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
        assertThat(new WindowChunker(1000, 256, 20, String::length).version()).isEqualTo("window-1(1000c/256t/20o)");
    }
}
