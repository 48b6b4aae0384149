package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.message.BasicHttpRequest;
import org.apache.hc.core5.http.nio.support.BasicRequestProducer;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.LogSafe;

/**
 * {@code http://} and {@code https://} sources. HEAD first; the version is the ETag when the server sends
 * one, else the content's SHA-256.
 *
 * <p>Bounded in time ({@link HttpTimeouts}): a connect timeout; an idle timeout until the response headers
 * and between body reads; a deadline for the whole body, enforced while reading, so a stalled or dripping
 * body ends as a {@link TransientException} with reason {@code timeout} and frees the thread. An interrupt
 * ends a wait at once. Bounded in size: the body is counted while it is copied (the caller's limit).
 *
 * <p>Redirects are followed here, not by the HTTP client, and every hop is passed to the {@link UriGuard}
 * before it is requested, so a redirect cannot lead outside the source's allowed prefixes. The guard resolves each
 * hop's host once ({@link UriGuard#checkHttp}) and the request connects to that checked address, sending the host
 * name as {@code Host} and TLS server name ({@link PinnedHttpClient}): no second lookup, so DNS rebinding does not
 * reach an address the guard refused.
 *
 * <p>Answers: 404 and 410 → the document is gone ({@link NoSuchFileException}, recorded as
 * deleted_at_source); 408, 425, 429 and 5xx → transient (reason {@code http_<code>}); any other 4xx →
 * permanent_input (reason {@code http_<code>}). A HEAD answered 403, 405 or 501 (servers without HEAD,
 * pre-signed URLs signed for GET) is asked again with GET, whose headers answer and whose body is not read.
 * Transport failures are transient: {@code timeout}, {@code connection_refused}, {@code connection_reset},
 * {@code truncated_body} (the connection ended before the body did), {@code not_http} (the peer does not
 * speak HTTP), {@code interrupted}. Once its {@link FetchCancellation} is cancelled (the application stops),
 * every request in flight ends at once and every later one fails unsent, each with a
 * {@link ShutdownException} (reason {@code shutdown}).
 */
public final class HttpConnector implements SourceConnector {

    /** Stored as {@code connector_version}. */
    public static final String VERSION = "http-3";

    private static final Set<Integer> REDIRECTS = Set.of(301, 302, 303, 307, 308);
    private static final Set<Integer> HEAD_REFUSED = Set.of(403, 405, 501);

    private final PinnedHttpClient client;
    private final HttpTimeouts timeouts;
    private final String scheme;
    private final FetchCancellation cancellation;

    /**
     * A connector whose requests are never cancelled from outside (the time bounds still end them).
     *
     * @param scheme {@code http} or {@code https}
     * @param timeouts the time bounds of every request
     */
    public HttpConnector(String scheme, HttpTimeouts timeouts) {
        this(scheme, timeouts, new FetchCancellation());
    }

    /**
     * @param scheme {@code http} or {@code https}
     * @param timeouts the time bounds of every request
     * @param cancellation ends the requests in flight when the application stops
     */
    public HttpConnector(String scheme, HttpTimeouts timeouts, FetchCancellation cancellation) {
        this.scheme = scheme;
        this.timeouts = timeouts;
        this.cancellation = cancellation;
        this.client = PinnedHttpClient.of(timeouts);
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
    public SourceHead head(URI uri, UriGuard guard) throws IOException {
        long deadline = System.nanoTime() + timeouts.bodyDeadline().toNanos();
        Exchange head = exchange(guard.checkHttp(uri), "HEAD", guard, deadline);
        head.body().close();
        if (HEAD_REFUSED.contains(head.response().getCode())) {
            head = exchange(head.target(), "GET", guard, deadline);
            head.body().close();
        }
        check(head.uri(), head.response().getCode());
        HttpResponse r = head.response();
        long length = header(r, "Content-Length").map(HttpConnector::length).orElse(-1L);
        return new SourceHead(length, lastModified(r), header(r, "ETag").orElse(null));
    }

    @Override
    public FetchedDocument fetch(URI uri, Path target, long maxBytes, UriGuard guard) throws IOException {
        long deadline = System.nanoTime() + timeouts.bodyDeadline().toNanos();
        Exchange get = exchange(guard.checkHttp(uri), "GET", guard, deadline);
        try (TimedBody body = get.body()) {
            check(get.uri(), get.response().getCode());
            DigestingCopy copy;
            try {
                copy = DigestingCopy.copy(body, target, maxBytes);
            } catch (IOException e) {
                throw transportFailure(get.uri(), e, "truncated_body");
            }
            HttpResponse r = get.response();
            String version = header(r, "ETag").orElse(copy.sha256());
            return new FetchedDocument(target, copy.bytes(), copy.sha256(), version, lastModified(r),
                    ContentTypes.sniff(copy.head(), copy.headLength()));
        }
    }

    /** A response with its body not yet read, and the checked target that answered it (after redirects). */
    private record Exchange(HttpTarget target, HttpResponse response, TimedBody body) {
        URI uri() {
            return target.uri();
        }
    }

    /** Sends {@code method}, following redirects itself: each hop's target passes the guard first. */
    private Exchange exchange(HttpTarget first, String method, UriGuard guard, long deadline) throws IOException {
        HttpTarget target = first;
        for (int hop = 0; ; hop++) {
            Exchange e = send(target, method, deadline);
            int status = e.response().getCode();
            if (!REDIRECTS.contains(status)) {
                return e;
            }
            e.body().close();
            String location = header(e.response(), "Location").orElseThrow(() -> new PermanentInputException(
                    "http_" + status, "the source answered HTTP " + status + " without a Location"));
            if (hop >= timeouts.maxRedirects()) {
                throw new PermanentInputException("too_many_redirects", "more than http.max-redirects="
                        + timeouts.maxRedirects() + " redirects from " + LogSafe.identity(first.uri().toString()));
            }
            URI next;
            try {
                next = target.uri().resolve(location);
            } catch (IllegalArgumentException ex) {
                throw new PermanentInputException("invalid_uri", "the source redirected to a malformed location "
                        + LogSafe.identity(location));
            }
            target = guard.checkHttp(next);
        }
    }

    private Exchange send(HttpTarget target, String method, long deadline) throws IOException {
        URI uri = target.uri();
        if (cancellation.isCancelled()) {
            throw stopped(uri, null);
        }
        TimedBody body = new TimedBody(timeouts.idle(), deadline, uri.getHost(), PinnedHttpClient.window());
        StreamingResponse response = new StreamingResponse(body);
        HttpHost host = PinnedHttpClient.host(target);
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        BasicHttpRequest request = new BasicHttpRequest(method, host,
                uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery());
        request.addHeader("Connection", "close");
        Future<Void> sent = client.client().execute(host, new BasicRequestProducer(request, null), response, null, null,
                response);
        body.exchange(sent);
        try {
            body.track(cancellation.register(() -> {
                sent.cancel(true);
                body.cancel();
            }));
        } catch (ShutdownException e) {
            sent.cancel(true);
            body.close();
            throw e;
        }
        long wait = Math.max(0, Math.min(timeouts.connect().plus(timeouts.idle()).toNanos(), deadline - System.nanoTime()));
        try {
            return new Exchange(target, response.head().get(wait, TimeUnit.NANOSECONDS), body);
        } catch (InterruptedException e) {
            body.close();
            Thread.currentThread().interrupt();
            throw transportFailure(uri, new InterruptedIOException("interrupted"), "interrupted");
        } catch (TimeoutException e) {
            body.close();
            throw transportFailure(uri, new HttpTimeoutException("no response within the time allowed"), "timeout");
        } catch (CancellationException e) {
            body.close();
            throw stopped(uri, null);
        } catch (ExecutionException e) {
            body.close();
            Throwable cause = e.getCause();
            throw transportFailure(uri, cause instanceof IOException io ? io : new IOException(cause), "not_http");
        }
    }

    /**
     * @param fallback the reason when the failure says nothing more specific
     * @return a transient failure naming what went wrong on the wire
     */
    private TransientException transportFailure(URI uri, IOException e, String fallback) {
        if (cancellation.isCancelled()) {
            return stopped(uri, e);
        }
        String reason = fallback;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpTimeoutException || t instanceof SocketTimeoutException
                    || t instanceof ConnectTimeoutException) {
                reason = "timeout";
                break;
            }
            if (t instanceof InterruptedIOException) {
                reason = "interrupted";
                break;
            }
            if (t instanceof ConnectException) {
                reason = "connection_refused";
                break;
            }
            if (t instanceof SocketException && String.valueOf(t.getMessage()).toLowerCase().contains("reset")) {
                reason = "connection_reset";
                break;
            }
            if (t instanceof ProtocolException || t instanceof HttpException) {
                reason = "not_http";
                break;
            }
        }
        return new TransientException(reason, "fetching from " + LogSafe.identity(uri.getHost()) + " failed (" + reason
                + ": " + LogSafe.identity(e.getMessage()) + "); retrying later", e);
    }

    private static ShutdownException stopped(URI uri, IOException e) {
        return new ShutdownException("the request to " + LogSafe.identity(uri.getHost())
                + " was cut short: this process is stopping; the message goes back to the queue", e);
    }

    private static void check(URI uri, int status) throws NoSuchFileException {
        if (status >= 200 && status < 300) {
            return;
        }
        if (status == 404 || status == 410) {
            throw new NoSuchFileException(LogSafe.identity(uri.toString()), null, "HTTP " + status);
        }
        if (status == 408 || status == 425 || status == 429 || status >= 500) {
            throw new TransientException("http_" + status, "the source answered HTTP " + status + "; retrying later", null);
        }
        throw new PermanentInputException("http_" + status, "the source answered HTTP " + status);
    }

    private static Optional<String> header(HttpResponse r, String name) {
        Header h = r.getFirstHeader(name);
        return h == null ? Optional.empty() : Optional.ofNullable(h.getValue());
    }

    private static long length(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static Instant lastModified(HttpResponse r) {
        return header(r, "Last-Modified").map(v -> {
            try {
                return ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            } catch (DateTimeParseException e) {
                return null;
            }
        }).orElse(null);
    }
}
