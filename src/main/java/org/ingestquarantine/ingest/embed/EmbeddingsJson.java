package org.ingestquarantine.ingest.embed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.failure.DownstreamContractException;

/**
 * The JSON of OpenAI's {@code POST /v1/embeddings}, both ways: the request {@code {"model", "input": [...]}} and
 * the response {@code {"data": [{"index": i, "embedding": [...]}, ...]}}, each vector put at its {@code index}.
 * A response that breaks the contract is a {@link DownstreamContractException}: reason {@value #UNREADABLE}
 * (not that JSON), {@value #COUNT} (not one vector per input) or
 * {@value DownstreamContractException#VECTOR_WIDTH}. Messages name counts and widths, never text.
 */
public final class EmbeddingsJson {

    /** Reason of a response that is not the embeddings JSON. */
    public static final String UNREADABLE = "embed_response";
    /** Reason of a response with more or fewer vectors than inputs. */
    public static final String COUNT = "embed_count";

    private static final ObjectMapper JSON = new ObjectMapper();

    private EmbeddingsJson() {
    }

    /**
     * @param model the model asked for
     * @param inputs the texts
     * @return the request body
     */
    public static byte[] request(String model, List<String> inputs) {
        ObjectNode body = JSON.createObjectNode().put("model", model);
        ArrayNode input = body.putArray("input");
        inputs.forEach(input::add);
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an embeddings request", e);
        }
    }

    /**
     * @param body the response body
     * @param inputs how many inputs were sent
     * @param dimensions the width every vector must have
     * @return one vector per input, in input order
     * @throws DownstreamContractException if the body is not the embeddings JSON, or holds the wrong count or width
     */
    public static List<float[]> vectors(byte[] body, int inputs, int dimensions) {
        JsonNode data;
        try {
            data = JSON.readTree(body).path("data");
        } catch (java.io.IOException e) {
            throw unreadable("not JSON (" + e.getClass().getSimpleName() + ")");
        }
        if (!data.isArray()) {
            throw unreadable("no \"data\" array");
        }
        if (data.size() != inputs) {
            throw new DownstreamContractException(COUNT, "the embedding service returned " + data.size()
                    + " vectors for " + inputs + " inputs");
        }
        float[][] out = new float[inputs][];
        for (int i = 0; i < inputs; i++) {
            JsonNode item = data.get(i);
            JsonNode index = item.path("index");
            int at = index.isMissingNode() ? i : index.isIntegralNumber() ? index.asInt() : -1;
            if (at < 0 || at >= inputs || out[at] != null) {
                throw new DownstreamContractException(COUNT, "the embedding service's vector " + i + " has index "
                        + (index.isIntegralNumber() ? index.asText() : "(not a number)") + ": not one vector per input");
            }
            out[at] = vector(item.path("embedding"), at, dimensions);
        }
        return List.of(out);
    }

    private static float[] vector(JsonNode embedding, int index, int dimensions) {
        if (!embedding.isArray()) {
            throw unreadable("vector " + index + " is not an array of numbers (encoding_format float expected)");
        }
        if (embedding.size() != dimensions) {
            throw new DownstreamContractException(DownstreamContractException.VECTOR_WIDTH, "the embedding service"
                    + " returned " + embedding.size() + " dimensions, embed.openai.dimensions is " + dimensions);
        }
        float[] v = new float[dimensions];
        for (int d = 0; d < dimensions; d++) {
            JsonNode x = embedding.get(d);
            if (!x.isNumber()) {
                throw unreadable("vector " + index + " holds a value that is not a number");
            }
            v[d] = x.floatValue();
        }
        return v;
    }

    /**
     * @param vectors one per input, in order
     * @param model the model name to report
     * @param tokens the inputs' tokens, for {@code usage}
     * @return the response body a service sends
     */
    public static byte[] response(List<float[]> vectors, String model, long tokens) {
        ObjectNode body = JSON.createObjectNode().put("object", "list");
        ArrayNode data = body.putArray("data");
        for (int i = 0; i < vectors.size(); i++) {
            ArrayNode embedding = data.addObject().put("object", "embedding").put("index", i).putArray("embedding");
            for (float x : vectors.get(i)) {
                embedding.add(x);
            }
        }
        body.put("model", model);
        body.putObject("usage").put("prompt_tokens", tokens).put("total_tokens", tokens);
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an embeddings response", e);
        }
    }

    /**
     * @param body a request body
     * @return its {@code input}: one string or an array of strings
     * @throws IllegalArgumentException if it is not such a request (the message names the field, never text)
     */
    public static List<String> inputs(byte[] body) {
        JsonNode input;
        try {
            input = JSON.readTree(body).path("input");
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("the request body is not JSON");
        }
        if (input.isTextual()) {
            return List.of(input.asText());
        }
        if (!input.isArray() || input.isEmpty()) {
            throw new IllegalArgumentException("'input' must be a string or a non-empty array of strings");
        }
        List<String> texts = new ArrayList<>(input.size());
        for (JsonNode x : input) {
            if (!x.isTextual()) {
                throw new IllegalArgumentException("'input' must hold strings (token arrays are not supported)");
            }
            texts.add(x.asText());
        }
        return texts;
    }

    /**
     * @param message what the service refuses, never text
     * @return OpenAI's error body
     */
    public static byte[] error(String message) {
        ObjectNode body = JSON.createObjectNode();
        body.putObject("error").put("message", message).put("type", "invalid_request_error");
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write an error body", e);
        }
    }

    private static DownstreamContractException unreadable(String what) {
        return new DownstreamContractException(UNREADABLE, "the embedding service's response is not the embeddings"
                + " JSON: " + what);
    }
}
