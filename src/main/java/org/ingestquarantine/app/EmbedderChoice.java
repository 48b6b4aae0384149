package org.ingestquarantine.app;

import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.embed.OpenAiEmbedder;
import org.ingestquarantine.ingest.embed.OpenAiSettings;
import org.ingestquarantine.pipeline.Settings;

/**
 * {@code embed.provider}: {@code local} embeds with the in-process all-MiniLM-L6-v2, {@code openai} through an
 * OpenAI-compatible service ({@code embed.openai.*}, {@link OpenAiSettings}). Either way the local tokenizer
 * counts the chunker's tokens; with {@code openai} the model's weights are never loaded.
 */
final class EmbedderChoice {

    /** The property choosing the provider. */
    static final String PROVIDER = "embed.provider";

    private EmbedderChoice() {
    }

    /**
     * @param settings the process's properties
     * @return whether the in-process model embeds ({@code embed.provider = local})
     * @throws IllegalArgumentException if {@code embed.provider} names neither provider
     */
    static boolean local(Settings settings) {
        String provider = settings.required(PROVIDER).trim();
        return switch (provider) {
            case "local" -> true;
            case "openai" -> false;
            default -> throw new IllegalArgumentException(PROVIDER + " must be local or openai, was '"
                    + org.ingestquarantine.pipeline.LogSafe.identity(provider) + "'");
        };
    }

    /**
     * @param settings the process's properties
     * @return where the in-process model is read from ({@value MiniLmModel#PROPERTY}); with {@code local}, checked to
     *     be there, so that a start without it fails before it consumes, naming the property
     * @throws IllegalStateException if {@code embed.provider = local} and the model is not there
     */
    static MiniLmModel model(Settings settings) {
        MiniLmModel model = MiniLmModel.of(settings);
        return local(settings) ? model.requirePresent() : model;
    }

    /**
     * @param settings the process's properties
     * @param tokenizer the in-process model; with {@code openai} only its tokenizer is used
     * @return the embedder {@code embed.provider} names
     * @throws IllegalArgumentException if a setting is missing or out of range, naming it
     */
    static Embedder choose(Settings settings, MiniLmEmbedder tokenizer) {
        return local(settings) ? tokenizer
                : new OpenAiEmbedder(OpenAiSettings.from(settings), tokenizer, System::getenv);
    }

    /**
     * Lets an embedding service that cannot be reached hold the consumer, probed by {@link OpenAiEmbedder#answers}
     * (the in-process model has no service to wait for).
     *
     * @param embedder the chosen embedder
     * @param breaker the consumer's circuit breaker
     */
    static void holdOnOutage(Embedder embedder, ConsumerCircuitBreaker breaker) {
        if (embedder instanceof OpenAiEmbedder service) {
            breaker.holdFor(OpenAiSettings.URL, service::answers);
        }
    }
}
