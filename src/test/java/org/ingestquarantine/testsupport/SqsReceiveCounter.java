package org.ingestquarantine.testsupport;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts deliveries from OUTSIDE the pipeline: an HTTP proxy between the consumer's SQS client and the
 * SQS server that relays every call unchanged and counts, per message id, how many ReceiveMessage
 * responses carried that message. The pipeline cannot influence this count.
 */
public final class SqsReceiveCounter implements AutoCloseable {

    private static final Pattern JSON_ID = Pattern.compile("\"MessageId\"\\s*:\\s*\"([^\"]+)\"");
    private static final Pattern XML_ID = Pattern.compile("<MessageId>([^<]+)</MessageId>");
    private static final Set<String> HOP_HEADERS = Set.of("host", "content-length", "connection", "transfer-encoding",
            "expect", "upgrade");

    private final HttpServer server;
    private final URI target;
    private final HttpClient client = HttpClient.newHttpClient();
    private final Map<String, AtomicInteger> receives = new ConcurrentHashMap<>();

    /**
     * @param target the SQS server's endpoint, e.g. {@code http://127.0.0.1:9324}
     * @throws IOException when no port can be bound
     */
    public SqsReceiveCounter(URI target) throws IOException {
        this.target = target;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/", this::relay);
        server.start();
    }

    /** @return the proxy's endpoint, to give the consumer as its SQS endpoint */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /**
     * @param messageId an SQS message id (without the {@code sqs:} prefix of a delivery key)
     * @return how many ReceiveMessage responses carried it so far
     */
    public int receives(String messageId) {
        AtomicInteger n = receives.get(messageId);
        return n == null ? 0 : n.get();
    }

    private void relay(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(target.resolve(ex.getRequestURI().toString()))
                    .method(ex.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
            ex.getRequestHeaders().forEach((name, values) -> {
                if (!HOP_HEADERS.contains(name.toLowerCase())) {
                    values.forEach(v -> b.header(name, v));
                }
            });
            HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            String target = ex.getRequestHeaders().getFirst("X-Amz-Target");
            String request = new String(body, StandardCharsets.UTF_8);
            if ((target != null && target.endsWith("ReceiveMessage")) || request.contains("Action=ReceiveMessage")) {
                count(new String(r.body(), StandardCharsets.UTF_8));
            }
            r.headers().map().forEach((name, values) -> {
                if (!HOP_HEADERS.contains(name.toLowerCase()) && !name.startsWith(":")) {
                    ex.getResponseHeaders().put(name, List.copyOf(values));
                }
            });
            ex.sendResponseHeaders(r.statusCode(), r.body().length == 0 ? -1 : r.body().length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(r.body());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            System.err.println("SqsReceiveCounter: relay failed: " + e);
            e.printStackTrace();
            throw e;
        }
    }

    private void count(String response) {
        for (Pattern p : List.of(JSON_ID, XML_ID)) {
            Matcher m = p.matcher(response);
            while (m.find()) {
                receives.computeIfAbsent(m.group(1), k -> new AtomicInteger()).incrementAndGet();
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
