package org.ingestquarantine.testsupport;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.embed.EmbeddingServer;

/**
 * The real all-MiniLM-L6-v2 behind {@code POST /v1/embeddings} on a loopback port: the handler {@code serve-embeddings}
 * runs, in the test's JVM, so a pipeline with {@code embed.provider = openai} talks to a real service.
 */
public final class ModelService implements AutoCloseable {

    /** The model name the service answers with. */
    public static final String MODEL = "all-MiniLM-L6-v2";
    /** The largest request body the service reads, in bytes. */
    private static final int MAX_REQUEST_BYTES = 16 << 20;

    private final HttpServer server;
    private final ExecutorService threads;

    private ModelService(HttpServer server, ExecutorService threads) {
        this.server = server;
        this.threads = threads;
    }

    /**
     * @param model the model to serve (the caller closes it)
     * @param port the loopback port, 0 for any free one
     * @param threads how many requests it serves at once
     * @return the service, started
     * @throws IOException when the port cannot be bound
     */
    public static ModelService start(MiniLmEmbedder model, int port, int threads) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        server.setExecutor(pool);
        server.createContext(EmbeddingServer.PATH,
                EmbeddingServer.handler(model, new EmbeddingServer.Limits(MODEL, null, MAX_REQUEST_BYTES)));
        server.start();
        return new ModelService(server, pool);
    }

    /** @return the port it listens on */
    public int port() {
        return server.getAddress().getPort();
    }

    /** @return the base URL to give {@code embed.openai.url} */
    public String url() {
        return "http://127.0.0.1:" + port() + "/v1";
    }

    /** Stops answering at once and frees the port. */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
