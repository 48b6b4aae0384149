package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.embed.OpenAiEmbedder;
import org.ingestquarantine.ingest.embed.OpenAiSettings;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.FreePort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures {@code serve-embeddings --port P}, run as a process with a key in {@code $IQ_EMBED_API_KEY}, prints
 * the settings that point the product at it, serves the local model's vectors to a client holding the key,
 * refuses one without it, never writes the key to its output, and stops on SIGTERM with exit 0.
 */
class ServeEmbeddingsCommandIT {

    private static final String KEY = "sk-serve-test-4b1d";

    @TempDir
    Path dir;

    @Test
    void shouldServeTheLocalModelBehindTheKeyAndPrintItsSettings() throws Exception {
        int port = FreePort.find();
        Path log = dir.resolve("serve.log");
        List<String> texts = List.of("the contract ends in May", "invoices are due in thirty days", "x");
        try (ConsumerProcess serve = ConsumerProcess.command(List.of("serve-embeddings", "--port", Integer.toString(port)),
                Map.of(), Map.of("IQ_EMBED_API_KEY", KEY), log);
             MiniLmEmbedder local = new MiniLmEmbedder()) {
            Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Files.exists(log) && Files.readString(log).contains("settings: "));
            String output = Files.readString(log);
            String url = "http://127.0.0.1:" + port + "/v1";
            assertThat(output).contains("settings: -Dembed.provider=openai -Dembed.openai.url=" + url)
                    .contains("key from $IQ_EMBED_API_KEY required");
            OpenAiSettings settings = new OpenAiSettings(URI.create(url), "all-MiniLM-L6-v2", 384, 2,
                    new OpenAiSettings.Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60)), "IQ_EMBED_API_KEY", 1);

            List<float[]> served = new OpenAiEmbedder(settings, local, name -> KEY).embed(texts);
            List<float[]> ours = local.embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                for (int d = 0; d < 384; d++) {
                    assertThat((double) Math.abs(served.get(i)[d] - ours.get(i)[d])).isLessThan(1e-4);
                }
            }
            assertThatThrownBy(() -> new OpenAiEmbedder(settings, local, name -> null).embed(texts))
                    .isInstanceOf(DownstreamContractException.class).hasMessageContaining("HTTP 401");

            assertThat(serve.terminate()).as("exit code on SIGTERM").isZero();
            assertThat(Files.readString(log)).doesNotContain(KEY);
        }
    }
}
