package org.ingestquarantine.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The operator page: three static files (HTML, script, style sheet) from {@code web/page/} on the class path,
 * served without a token because they hold no data. The script asks for the bearer token, keeps it in the
 * tab's {@code sessionStorage} (gone when the tab closes) and reads everything from {@code /api/} with it.
 * Answers {@code GET /}, {@code /page.js} and {@code /page.css}; any other path 404, any other method 405.
 * Every answer forbids inline script, framing, other origins and caching ({@link SecurityHeaders}).
 */
final class OperatorPage {

    private static final Map<String, Asset> ASSETS = Map.of(
            "/", Asset.load("index.html", "text/html; charset=utf-8"),
            "/page.js", Asset.load("page.js", "text/javascript; charset=utf-8"),
            "/page.css", Asset.load("page.css", "text/css; charset=utf-8"));

    private OperatorPage() {
    }

    static HttpAnswer handle(HttpAsk x) {
        Asset asset = ASSETS.get(x.rawPath());
        if (asset == null) {
            return HttpAnswer.text(404, "not found; the operator page is at /");
        }
        if (!"GET".equals(x.method()) && !"HEAD".equals(x.method())) {
            return HttpAnswer.text(405, "use GET");
        }
        return new HttpAnswer(200, asset.contentType(), asset.bytes(), Map.of());
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
