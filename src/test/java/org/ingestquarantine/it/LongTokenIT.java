package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.testsupport.TestPipeline;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a normal document holding one 1,200-character token (a key, a hash, a base64 blob) is indexed
 * through the pipeline, and every chunk stored for it fits the embedding model (its tokens, and
 * {@code chunk.max-chars}).
 */
class LongTokenIT {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path data;

    @TempDir
    Path files;

    @Test
    void shouldIndexADocumentWithA1200CharacterTokenInChunksTheModelCanTake() throws Exception {
        String token = token(1_200);
        String page = "clause ".repeat(40) + token + " term".repeat(40);
        Path pdf = Files.write(files.resolve("token.pdf"), TextPdf.of(page));
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            String key = pipeline.publishFile("it", "token.pdf", pdf);
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");

            List<String> chunks = new ArrayList<>();
            try (var c = pipeline.dataSource().getConnection();
                 var s = c.prepareStatement("SELECT text FROM chunks WHERE source = 'it' AND doc_id = 'token.pdf' ORDER BY seq")) {
                try (var rs = s.executeQuery()) {
                    while (rs.next()) {
                        chunks.add(rs.getString(1));
                    }
                }
            }
            MiniLmEmbedder model = new MiniLmEmbedder();
            assertThat(chunks).isNotEmpty().allSatisfy(chunk -> {
                assertThat(model.countTokens(chunk)).as("tokens of a chunk").isLessThanOrEqualTo(model.maxTokens());
                assertThat(chunk.length()).as("characters of a chunk").isLessThanOrEqualTo(1_000);
            });
            // the token was extracted and cut, not dropped: its two ends are stored
            String stored = String.join("", chunks).replace(" ", "");
            assertThat(stored).contains(token.substring(0, 40)).contains(token.substring(token.length() - 40));
            // a cut at 1,000 characters alone would have left a piece over the model's limit
            assertThat(model.countTokens(token.substring(0, 1_000))).isGreaterThan(model.maxTokens());
        }
    }

    /** @return a base64-like run (letters, digits, + and /; no spaces) of {@code length} characters */
    private static String token(int length) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        StringBuilder b = new StringBuilder(length);
        long x = 12345;
        for (int i = 0; i < length; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b.append(alphabet.charAt((int) ((x >>> 33) % alphabet.length())));
        }
        return b.toString();
    }
}
