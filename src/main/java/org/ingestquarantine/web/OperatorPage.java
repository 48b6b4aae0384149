package org.ingestquarantine.web;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The operator page: three static files (HTML, script, style sheet) from {@code web/page/} on the class path,
 * served without a token because they hold no data. The script asks for the bearer token, keeps it in the
 * tab's {@code sessionStorage} (gone when the tab closes) and reads everything from {@code /api/} with it.
 * Answers {@code GET /}, {@code /page.js} and {@code /page.css}; any other path 404, any other method 405.
 * Every answer forbids inline script, framing, other origins and caching ({@value #POLICY}).
 */
final class OperatorPage {

    /** The Content-Security-Policy of every answer: only this origin's own script, style and API. */
    static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
            + " img-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

    private static final Map<String, Asset> ASSETS = Map.of(
            "/", Asset.load("index.html", "text/html; charset=utf-8"),
            "/page.js", Asset.load("page.js", "text/javascript; charset=utf-8"),
            "/page.css", Asset.load("page.css", "text/css; charset=utf-8"));

    private OperatorPage() {
    }

    static void handle(HttpExchange x) throws IOException {
        Asset asset = ASSETS.get(x.getRequestURI().getRawPath());
        int status = asset == null ? 404 : "GET".equals(x.getRequestMethod()) || "HEAD".equals(x.getRequestMethod())
                ? 200 : 405;
        byte[] body = status == 200 ? asset.bytes()
                : (status == 404 ? "not found; the operator page is at /\n" : "use GET\n").getBytes(StandardCharsets.UTF_8);
        var headers = x.getResponseHeaders();
        headers.set("Content-Type", status == 200 ? asset.contentType() : "text/plain; charset=utf-8");
        headers.set("Content-Security-Policy", POLICY);
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(x.getRequestMethod());
        x.sendResponseHeaders(status, head ? -1 : body.length);
        try (OutputStream out = x.getResponseBody()) {
            if (!head) {
                out.write(body);
            }
        }
    }

    private record Asset(byte[] bytes, String contentType) {
        static Asset load(String name, String contentType) {
            try (InputStream in = OperatorPage.class.getResourceAsStream("/web/page/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("web/page/" + name + " is missing from the class path");
                }
                return new Asset(in.readAllBytes(), contentType);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
