package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;

/**
 * {@code http://} and {@code https://} sources. HEAD first; the version is the ETag when the server sends
 * one, else the content's SHA-256. Status codes: 404 and 410 → the document is gone
 * ({@link NoSuchFileException}, recorded as deleted_at_source); 408, 425, 429 and 5xx → transient
 * (reason {@code http_<code>}); any other 4xx → permanent_input (reason {@code http_<code>}).
 */
public final class HttpConnector implements SourceConnector {

    /** Stored as {@code connector_version}. */
    public static final String VERSION = "http-1";
    /** Default time allowed for connecting and for each response, ms. */
    public static final long DEFAULT_TIMEOUT_MS = 30_000;

    private final HttpClient client;
    private final Duration timeout;
    private final String scheme;

    /**
     * @param scheme {@code http} or {@code https}
     * @param timeout time allowed for connecting and for each response
     */
    public HttpConnector(String scheme, Duration timeout) {
        this.scheme = scheme;
        this.timeout = timeout;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    @Override
    public String scheme() {
        return scheme;
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public SourceHead head(URI uri) throws IOException {
        HttpResponse<Void> r = send(HttpRequest.newBuilder(uri).timeout(timeout)
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        check(uri, r.statusCode());
        long length = r.headers().firstValueAsLong("Content-Length").orElse(-1);
        return new SourceHead(length, lastModified(r), r.headers().firstValue("ETag").orElse(null));
    }

    @Override
    public FetchedDocument fetch(URI uri, Path target, long maxBytes) throws IOException {
        HttpResponse<InputStream> r = send(HttpRequest.newBuilder(uri).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = r.body()) {
            check(uri, r.statusCode());
            DigestingCopy copy = DigestingCopy.copy(body, target, maxBytes);
            String version = r.headers().firstValue("ETag").orElse(copy.sha256());
            return new FetchedDocument(target, copy.bytes(), copy.sha256(), version, lastModified(r),
                    ContentTypes.sniff(copy.head(), copy.headLength()));
        }
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException {
        try {
            return client.send(request, handler);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + request.uri().getHost(), e);
        }
    }

    private static void check(URI uri, int status) throws NoSuchFileException {
        if (status >= 200 && status < 300) {
            return;
        }
        if (status == 404 || status == 410) {
            throw new NoSuchFileException(uri.toString(), null, "HTTP " + status);
        }
        if (status == 408 || status == 425 || status == 429 || status >= 500) {
            throw new TransientException("http_" + status, "the source answered HTTP " + status + "; retrying later", null);
        }
        throw new PermanentInputException("http_" + status, "the source answered HTTP " + status);
    }

    private static Instant lastModified(HttpResponse<?> r) {
        return r.headers().firstValue("Last-Modified").map(v -> {
            try {
                return ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            } catch (DateTimeParseException e) {
                return null;
            }
        }).orElse(null);
    }
}
