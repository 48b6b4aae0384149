package org.ingestquarantine.ingest;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * all-MiniLM-L6-v2 in-process (ONNX Runtime), offline: 384-dimensional vectors, mean-pooled over the word
 * pieces and L2-normalised, as langchain4j's {@code AllMiniLmL6V2EmbeddingModel} computes them (the model
 * file and tokenizer are the ones its jar ships; the model is read from where {@link MiniLmModel} says, property
 * {@code embed.model-file}). The session is our own: one intra-op thread that does not
 * spin, shared by the {@link EmbeddingPool}'s threads, each running a whole padded batch per call.
 *
 * <p>Input length: the model sees at most {@code maxInputTokens} word pieces of one input, its start and end
 * markers included (property {@code embed.max-tokens}, default {@value #MAX_TOKENS}); the chunker cuts chunks of
 * at most {@link #maxTokens()} = that - 2 word pieces, so no chunk text goes unembedded. {@value #MAX_TOKENS} is
 * the model's own: sentence-transformers truncates its inputs there ({@code max_seq_length} 256 in the model's
 * {@code sentence_bert_config.json}; model card https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2 :
 * "By default, input text longer than 256 word pieces is truncated"). Up to version
 * {@code all-minilm-l6-v2/langchain4j-1.19.0} the input was cut at 128 word pieces (the tokenizer file langchain4j
 * ships) while chunks held up to 256, so about 40% of chunk text was never embedded; the version now names the
 * input length ({@link #version()}), so rows embedded the old way are told apart.
 *
 * <p>Model: the fp32 all-MiniLM-L6-v2 or its int8-quantized variant ({@link MiniLmModel.Variant}, property
 * {@code embed.local-model}); both take the same tokenizer, inputs and 384 dimensions, and the version begins with
 * the variant's name ({@code all-minilm-l6-v2/...} or {@code all-minilm-l6-v2-q/...}), so rows embedded by either
 * are told apart. The quantized model's vectors depend slightly on their batch ({@link #run}).
 *
 * <p>The model (90 MB) loads in the background from {@link #startLoading()} on (the application calls it at the
 * end of its start-up), so that start-up does other work meanwhile; the first {@link #embed} starts the load if
 * nobody did and waits for it. Thread-safe.
 */
public final class MiniLmEmbedder implements Embedder, AutoCloseable {

    /** Vector width of all-MiniLM-L6-v2. */
    public static final int DIMENSIONS = 384;
    /**
     * The model's input limit in word pieces, start and end markers included (sentence-transformers'
     * {@code max_seq_length}); the default of {@code embed.max-tokens}.
     */
    public static final int MAX_TOKENS = 256;
    /** Position embeddings of the model ({@code max_position_embeddings}): no input can be longer. */
    private static final int POSITIONS = 512;
    /** Embedding threads when none are configured (property {@code embed.threads}). */
    public static final int DEFAULT_THREADS = 2;
    /** Inputs per model call when none are configured (property {@code embed.batch-chunks}). */
    public static final int DEFAULT_BATCH = 32;

    private final int maxInputTokens;
    private final MiniLmModel model;
    /**
     * Guards the native tokenizer and session: every call into them holds it, and {@link #close()} waits for
     * those calls, so neither is freed while a thread (an embedding thread, or a consumer abandoned by the
     * shutdown) is still inside it: freeing a session under {@code OrtSession.run} crashes the JVM.
     */
    private final NativeGuard natives = new NativeGuard();
    private final MiniLmTokenizer tokenizer;
    private final MiniLmSession session;
    private final EmbeddingPool pool;

    /** With {@value #DEFAULT_THREADS} threads, batches of {@value #DEFAULT_BATCH}, inputs of {@value #MAX_TOKENS}. */
    public MiniLmEmbedder() {
        this(DEFAULT_THREADS, DEFAULT_BATCH);
    }

    /** With inputs of at most {@value #MAX_TOKENS} word pieces; see {@link #MiniLmEmbedder(int, int, int)}. */
    public MiniLmEmbedder(int threads, int batchSize) {
        this(threads, batchSize, MAX_TOKENS);
    }

    /** With the model on the class path; see {@link #MiniLmEmbedder(int, int, int, MiniLmModel)}. */
    public MiniLmEmbedder(int threads, int batchSize, int maxInputTokens) {
        this(threads, batchSize, maxInputTokens, MiniLmModel.onClassPath());
    }

    /**
     * @param threads embedding threads (property {@code embed.threads}), ≥ 1; each runs one batch at a time
     *     with one ONNX intra-op thread
     * @param batchSize most inputs per model call (property {@code embed.batch-chunks}), ≥ 1
     * @param maxInputTokens word pieces the model sees of one input, its two markers included (property
     *     {@code embed.max-tokens}), 3-512; {@value #MAX_TOKENS} is what the model was trained for
     * @param model where the model is read from when it loads (property {@code embed.model-file}); the tokenizer
     *     alone (token counts for {@code embed.provider=openai}) never reads it
     * @throws IllegalArgumentException if a count is below 1 or {@code maxInputTokens} out of range
     * @throws UncheckedIOException if the tokenizer cannot be read from the classpath
     */
    public MiniLmEmbedder(int threads, int batchSize, int maxInputTokens, MiniLmModel model) {
        this.model = model;
        if (maxInputTokens < 3 || maxInputTokens > POSITIONS) {
            throw new IllegalArgumentException("embed.max-tokens must be 3-" + POSITIONS + " word pieces, was "
                    + maxInputTokens);
        }
        this.maxInputTokens = maxInputTokens;
        tokenizer = new MiniLmTokenizer(maxInputTokens, natives);
        session = new MiniLmSession(model);
        pool = new EmbeddingPool(threads, batchSize, this::run);
    }

    /**
     * Starts loading the model in a thread of its own, unless it is loading already; the first {@link #embed}
     * starts it too and waits for it. The application calls this once its start-up has done its own work, so the
     * load (about 1.5 CPU-seconds) does not compete with it.
     */
    public void startLoading() {
        session.startLoading();
    }

    /** @return completes when the model has loaded (or failed to); the first {@link #embed} waits for it */
    public CompletableFuture<Void> modelLoaded() {
        return session.loaded();
    }

    @Override
    public String version() {
        return model.variant().id() + "/langchain4j-1.19.0/input-" + maxInputTokens;
    }

    @Override
    public int dimensions() {
        return DIMENSIONS;
    }

    @Override
    public int maxTokens() {
        return maxInputTokens - 2;
    }

    /** @return word pieces of {@code text}, without the model's start and end markers */
    @Override
    public int countTokens(String text) {
        return tokenizer.countTokens(text);
    }

    /**
     * One pass of the tokenizer over the whole text; each token counts for the word its first character is in
     * (word pieces never span whitespace, so the counts add up to {@link #countTokens} of any run of words).
     */
    @Override
    public int[] countTokensPerWord(String text, int[] starts, int[] ends) {
        return tokenizer.countTokensPerWord(text, starts, ends);
    }

    /**
     * @param texts inputs, each within {@link #maxTokens()}
     * @return one unit vector per input, in order; the inputs are queued with those of every other caller
     *     and embedded in batches by the pool's threads
     */
    @Override
    public List<float[]> embed(List<String> texts) {
        List<long[]> ids = new ArrayList<>(texts.size());
        for (String text : texts) {
            ids.add(tokenizer.inputIds(text));
        }
        return pool.embed(ids);
    }

    /**
     * One model call: the inputs padded to the longest, mean-pooled over their own word pieces. With the quantized
     * model ({@link MiniLmModel.Variant#INT8}) the activations are quantized with one scale per call
     * (DynamicQuantizeLinear over the whole tensor, padding included), so a chunk's vector depends a little on the
     * chunks batched with it (cosine distance up to 0.014 against the chunk run alone, on MiniLmEmbedderTest's 50
     * real chunks); a call per chunk would make it independent but cost about 45% of int8's chunks/s on the corpus
     * (bench/embedding-quality, 27 against 15 chunks/s), so int8's vectors are close, not bit-identical, across runs.
     *
     * @param batch token ids with the start and end markers
     * @return one unit vector per input
     */
    float[][] run(List<long[]> batch) {
        return MiniLmBatch.run(session.get(), batch, natives);
    }

    /**
     * Stops the pool's threads, waits for the model's load if it is still running (a JVM that exits while ONNX
     * Runtime creates the session crashes with SIGSEGV: a drain that never embedded did), waits until no thread
     * is inside the native tokenizer or session (at most one running batch), then releases both; later calls
     * throw {@link IllegalStateException}.
     */
    @Override
    public void close() {
        pool.close();
        session.awaitLoad();
        natives.close(() -> {
            session.close();
            tokenizer.close();
        });
    }
}
