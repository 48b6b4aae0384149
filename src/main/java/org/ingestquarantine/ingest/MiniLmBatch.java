package org.ingestquarantine.ingest;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One MiniLM model call over a batch of inputs: padded to the longest, mean-pooled over each input's own word
 * pieces and L2-normalised, as langchain4j's {@code AllMiniLmL6V2EmbeddingModel} computes it.
 */
final class MiniLmBatch {

    private static final int DIMENSIONS = MiniLmEmbedder.DIMENSIONS;

    private MiniLmBatch() {
    }

    /**
     * See {@code MiniLmEmbedder.run} for how the quantized model's vectors depend on their batch.
     *
     * @param session the loaded model
     * @param batch token ids with the start and end markers
     * @param natives held while the session runs, so it is not freed under it
     * @return one unit vector per input
     * @throws IllegalStateException if the model fails, or the embedder was closed
     */
    static float[][] run(OrtSession session, List<long[]> batch, NativeGuard natives) {
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
            Arrays.fill(mask, i * len, i * len + ids.length, 1L);
        }
        long[] shape = {n, len};
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OnnxTensor idsT = OnnxTensor.createTensor(env, LongBuffer.wrap(inputIds), shape);
             OnnxTensor maskT = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape);
             OnnxTensor typesT = OnnxTensor.createTensor(env, LongBuffer.wrap(new long[n * len]), shape)) {
            Map<String, OnnxTensor> inputs = new HashMap<>();
            inputs.put("input_ids", idsT);
            inputs.put("attention_mask", maskT);
            if (session.getInputNames().contains("token_type_ids")) {
                inputs.put("token_type_ids", typesT);
            }
            try (OrtSession.Result result = natives.call(() -> runSession(session, inputs))) {
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

    private static OrtSession.Result runSession(OrtSession s, Map<String, OnnxTensor> inputs) {
        try {
            return s.run(inputs);
        } catch (OrtException e) {
            throw new IllegalStateException("the embedding model failed: " + e.getMessage(), e);
        }
    }
}
