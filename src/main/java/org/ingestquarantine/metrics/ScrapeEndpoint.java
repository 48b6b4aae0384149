package org.ingestquarantine.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The Prometheus scrape endpoint: {@code GET} {@value #PATH} on the management address answers the registry
 * in the Prometheus text format. It runs on a thread of its own and reads only values held in memory (the
 * store gauges are read on their own schedule by {@link StoreGauges}), so it answers while the database is
 * down and never waits for, or holds up, message processing.
 */
public final class ScrapeEndpoint implements AutoCloseable {

    /** Path of the scrape endpoint. */
    public static final String PATH = "/metrics";
    /** Content type of Prometheus text format 0.0.4, the format {@link PrometheusMeterRegistry#scrape()} writes. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    private ScrapeEndpoint(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * @param registry what is exported
     * @param host address to listen on, e.g. {@code 127.0.0.1} (loopback: only this machine can scrape)
     * @param port port to listen on, 0 for any free port ({@link #url()} names the one taken)
     * @return the listening endpoint
     * @throws IOException when the address cannot be bound
     */
    public static ScrapeEndpoint start(PrometheusMeterRegistry registry, String host, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.createContext(PATH, exchange -> answer(exchange, registry));
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "metrics-scrape");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new ScrapeEndpoint(server, executor);
    }

    private static void answer(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(200, head ? -1 : body.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    /** @return the scrape URL, with the port actually bound */
    public URI url() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().getHostAddress();
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort() + PATH);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
