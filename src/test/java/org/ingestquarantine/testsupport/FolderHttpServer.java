package org.ingestquarantine.testsupport;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server on loopback that serves the files of one folder under {@code /docs/} (HEAD and GET, an ETag of
 * the bytes' SHA-256 unless {@link #etag(String, String)} set another, 404 for a missing file), counting the
 * requests per path, as a document source for tests.
 */
public final class FolderHttpServer implements AutoCloseable {

    private final Path folder;
    private final HttpServer server;
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final Map<String, String> etags = new ConcurrentHashMap<>();

    private FolderHttpServer(Path folder) throws IOException {
        this.folder = folder.toAbsolutePath().normalize();
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/docs/", this::serve);
        server.start();
    }

    /** @return a started server for the files in {@code folder} */
    public static FolderHttpServer serve(Path folder) throws IOException {
        return new FolderHttpServer(folder);
    }

    /** @return the prefix every document URI starts with, e.g. {@code http://127.0.0.1:40111/docs/} */
    public URI base() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/docs/");
    }

    /** @return the URI of the file {@code name} in the folder */
    public URI uri(String name) {
        return base().resolve(name);
    }

    /**
     * Serves the file {@code name} under {@code etag} (the header's whole value, e.g. {@code W/"resaved-1"}) from now
     * on, whatever its bytes: a source that re-saved a document without changing it.
     */
    public void etag(String name, String etag) {
        etags.put(name, etag);
    }

    /** @return HEAD and GET requests so far for {@code name} */
    public int requests(String name) {
        AtomicInteger n = requests.get(name);
        return n == null ? 0 : n.get();
    }

    /** @return HEAD and GET requests so far under {@code /docs/}, whatever they named */
    public int requests() {
        return requests.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String name = exchange.getRequestURI().getPath().substring("/docs/".length());
            requests.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
            Path file = folder.resolve(name).normalize();
            if (!file.startsWith(folder) || !Files.isRegularFile(file)) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            byte[] body = Files.readAllBytes(file);
            exchange.getResponseHeaders().set("ETag", etags.getOrDefault(name, etagOf(body)));
            exchange.getResponseHeaders().set("Content-Type", "application/pdf");
            if ("HEAD".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().set("Content-Length", Long.toString(body.length));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** @return the ETag served for these bytes unless another was set: their SHA-256 in quotes */
    public static String etagOf(byte[] bytes) {
        return "\"" + sha256(bytes) + "\"";
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
