package org.ingestquarantine.ingest.embed;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.ingestquarantine.ingest.Embedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embeds through an OpenAI-compatible {@code POST /v1/embeddings} service ({@code embed.provider = openai}; see
 * {@link OpenAiSettings}), in requests of at most {@code embed.openai.batch-chunks} chunks sent from the calling
 * thread. Tokens are still counted here, by the local tokenizer the chunker uses ({@code tokens}: the
 * all-MiniLM-L6-v2 tokenizer; its model weights are never loaded by this embedder), so chunks fit the local
 * model's {@code embed.max-tokens}. Failures are classified by {@link EmbeddingsClient}: a service that cannot be
 * reached holds the consumer ({@link #answers} is the probe). Thread-safe.
 */
public final class OpenAiEmbedder implements Embedder {

    private static final Logger LOG = LoggerFactory.getLogger(OpenAiEmbedder.class);

    private final OpenAiSettings settings;
    private final Embedder tokens;
    private final EmbeddingsClient client;

    /**
     * @param settings the service
     * @param tokens counts tokens and sets the chunk limit; its {@link Embedder#embed} is never called
     * @param environment reads an environment variable (the key's, {@code embed.openai.api-key-env}); null if unset
     */
    public OpenAiEmbedder(OpenAiSettings settings, Embedder tokens, UnaryOperator<String> environment) {
        this.settings = settings;
        this.tokens = tokens;
        String key = settings.apiKeyEnv().isBlank() ? null : environment.apply(settings.apiKeyEnv());
        if (key == null || key.isBlank()) {
            LOG.info("embedding through {} ({}), model {}: no key in ${} (embed.openai.api-key-env), requests carry"
                    + " no Authorization header", settings.shownUrl(), OpenAiSettings.URL, settings.model(),
                    settings.apiKeyEnv().isBlank() ? "(none named)" : settings.apiKeyEnv());
        }
        this.client = new EmbeddingsClient(settings, key);
    }

    /** @return {@code openai:<embed.openai.model>/<embed.openai.dimensions>} */
    @Override
    public String version() {
        return "openai:" + settings.model() + "/" + settings.dimensions();
    }

    @Override
    public int dimensions() {
        return settings.dimensions();
    }

    @Override
    public int maxTokens() {
        return tokens.maxTokens();
    }

    @Override
    public int countTokens(String text) {
        return tokens.countTokens(text);
    }

    @Override
    public int[] countTokensPerWord(String text, int[] starts, int[] ends) {
        return tokens.countTokensPerWord(text, starts, ends);
    }

    /**
     * The consumer's circuit breaker's probe while the service is unreachable: one embeddings request of one fixed
     * input. Never throws.
     *
     * @return whether the service answered it with vectors
     */
    public boolean answers() {
        return client.answers();
    }

    @Override
    public List<float[]> embed(List<String> texts) {
        List<float[]> out = new ArrayList<>(texts.size());
        for (int from = 0; from < texts.size(); from += settings.batchChunks()) {
            out.addAll(client.embed(texts.subList(from, Math.min(texts.size(), from + settings.batchChunks()))));
        }
        return out;
    }
}
