package org.ingestquarantine.ingest.embed;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.ingestquarantine.ingest.Embedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible {@code POST /v1/embeddings} over any {@link Embedder} (the CLI's {@code serve-embeddings}
 * serves the in-process all-MiniLM-L6-v2 with it), so that the model can run on another machine and
 * {@code embed.provider = openai} reach it. The request's {@code input} is a string or an array of strings; its
 * {@code model} is not checked (one model is served). With a key, every request needs
 * {@code Authorization: Bearer <key>}. No text is logged. Closing stops it.
 */
public final class EmbeddingServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddingServer.class);

    /** The path served. */
    public static final String PATH = "/v1/embeddings";

    private final HttpServer server;
    private final ExecutorService executor;

    private EmbeddingServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * What a request may be.
     *
     * @param model the model name reported in responses
     * @param apiKey the key every request must send, or {@code null} for none
     * @param maxRequestBytes largest request body ({@code embed.serve.max-request-bytes}); a larger one is 413
     */
    public record Limits(String model, String apiKey, long maxRequestBytes) {
    }

    /**
     * @param address where to listen
     * @param embedder the model served
     * @param limits the model name, key and body limit
     * @param handlerThreads requests handled at once ({@code embed.serve.handler-threads}), ≥ 1
     * @return the started server
     * @throws IOException if the address cannot be bound
     */
    public static EmbeddingServer start(InetSocketAddress address, Embedder embedder, Limits limits, int handlerThreads)
            throws IOException {
        HttpServer server = HttpServer.create(address, 0);
        ExecutorService executor = Executors.newFixedThreadPool(handlerThreads, r -> {
            Thread t = new Thread(r, "embed-serve");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext(PATH, handler(embedder, limits));
        server.start();
        return new EmbeddingServer(server, executor);
    }

    /**
     * @param embedder the model served
     * @param limits the model name, key and body limit
     * @return the handler of {@value #PATH} (a test may wrap it to misbehave in front of a real model)
     */
    public static HttpHandler handler(Embedder embedder, Limits limits) {
        byte[] key = limits.apiKey() == null ? null : ("Bearer " + limits.apiKey()).getBytes(StandardCharsets.UTF_8);
        return exchange -> {
            try {
                if (!"POST".equals(exchange.getRequestMethod())) {
                    exchange.getResponseHeaders().set("Allow", "POST");
                    send(exchange, 405, EmbeddingsJson.error("use POST"));
                    return;
                }
                String auth = exchange.getRequestHeaders().getFirst("Authorization");
                if (key != null && (auth == null
                        || !MessageDigest.isEqual(key, auth.getBytes(StandardCharsets.UTF_8)))) {
                    send(exchange, 401, EmbeddingsJson.error("a valid 'Authorization: Bearer <key>' is required"));
                    return;
                }
                byte[] body = readBounded(exchange.getRequestBody(), limits.maxRequestBytes());
                if (body == null) {
                    send(exchange, 413, EmbeddingsJson.error("the request body is over " + limits.maxRequestBytes()
                            + " bytes (embed.serve.max-request-bytes)"));
                    return;
                }
                List<String> inputs;
                try {
                    inputs = EmbeddingsJson.inputs(body);
                } catch (IllegalArgumentException e) {
                    send(exchange, 400, EmbeddingsJson.error(e.getMessage()));
                    return;
                }
                long tokens = 0;
                for (String input : inputs) {
                    tokens += embedder.countTokens(input);
                }
                send(exchange, 200, EmbeddingsJson.response(embedder.embed(inputs), limits.model(), tokens));
            } catch (RuntimeException e) {
                LOG.warn("an embeddings request failed: {}", e.getClass().getSimpleName());
                send(exchange, 500, EmbeddingsJson.error("the model failed (" + e.getClass().getSimpleName() + ")"));
            } finally {
                exchange.close();
            }
        };
    }

    /** @return the port listened on */
    public int port() {
        return server.getAddress().getPort();
    }

    /** @return the base URL to give {@value OpenAiSettings#URL}: {@code http://host:port/v1} */
    public String baseUrl() {
        return "http://" + server.getAddress().getHostString() + ":" + port() + "/v1";
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    /** @return the body, or {@code null} if it is over {@code max} bytes */
    private static byte[] readBounded(InputStream in, long max) throws IOException {
        byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, max + 1));
        return body.length > max ? null : body;
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
