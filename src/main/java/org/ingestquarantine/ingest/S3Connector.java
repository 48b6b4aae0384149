package org.ingestquarantine.ingest;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.LogSafe;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@code s3://bucket/key} sources (S3 and S3-compatible servers, {@link S3Clients#forSources}). The key is
 * decoded once and checked by {@link S3Location} after the source's guard admitted the URI.
 *
 * <p>HEAD is HeadObject: its size, its {@code LastModified} as the source's update time, and as the source
 * version the object's version id where the bucket is versioned, else its ETag. GET is GetObject, bounded as
 * the HTTP fetch is ({@link HttpTimeouts}: connect, idle between reads, and a deadline from sending the request
 * to the body's last byte, the client's call timeout, which aborts a dripping body) and in size while it is read
 * (the caller's limit; past it the connection is aborted, the rest is not downloaded).
 *
 * <p>Every request (a HEAD, a GET, and the one-byte GET below) first takes a token of the
 * {@link SourceRequestThrottle}, and the client retries nothing itself, so every request sent is counted.
 *
 * <p>Answers: a missing object → {@link java.nio.file.NoSuchFileException} (recorded as deleted_at_source);
 * {@code NoSuchBucket} → permanent_input {@code s3_no_such_bucket}; {@code AccessDenied} and any other 403 →
 * permanent_input {@code s3_access_denied}; refused credentials → transient {@code s3_credentials_refused};
 * a bucket of another region → transient {@code s3_wrong_region}; {@code SlowDown}/503 → transient
 * {@code s3_slow_down}; other 5xx, 408, 429 → transient {@code s3_<status>}; other 4xx → permanent_input
 * {@code s3_<status>}; transport failures → transient ({@code timeout}, {@code connection_refused},
 * {@code unknown_host}, {@code connection_reset}, {@code truncated_body}, {@code s3_no_credentials}). S3 answers
 * a HEAD's error without a body, so a HEAD refused with 403 or 404 is asked once more with a one-byte GET, whose
 * error code tells a deleted object from a missing bucket (which must not close records as deleted) and
 * refused credentials from a denied object. Once its {@link FetchCancellation} is cancelled, a body being read
 * is aborted and no request is sent ({@link ShutdownException}).
 */
public final class S3Connector implements SourceConnector {

    /** Stored as {@code connector_version}. */
    public static final String VERSION = "s3-1";

    private final Supplier<S3Client> factory;
    private final HttpTimeouts timeouts;
    private final SourceRequestThrottle throttle;
    private final FetchCancellation cancellation;
    private volatile S3Client client;

    /**
     * @param factory makes the client on the first request (a process without S3 sources never makes one)
     * @param timeouts the time bounds of every request ({@code http.*})
     * @param throttle takes a token before every request
     * @param cancellation ends a body being read when the application stops
     */
    public S3Connector(Supplier<S3Client> factory, HttpTimeouts timeouts, SourceRequestThrottle throttle,
                       FetchCancellation cancellation) {
        this.factory = factory;
        this.timeouts = timeouts;
        this.throttle = throttle;
        this.cancellation = cancellation;
    }

    @Override
    public String scheme() {
        return "s3";
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public SourceHead head(URI uri, UriGuard guard) throws IOException {
        URI checked = guard.check(uri);
        S3Location at = S3Location.of(checked);
        HeadObjectResponse r;
        try {
            r = send(checked, at, () -> client().headObject(b -> b.bucket(at.bucket()).key(at.key())), true);
        } catch (S3Exception e) {
            throw S3SourceFailures.rethrow(S3SourceFailures.of(at,
                    e.statusCode() == 403 || e.statusCode() == 404 ? askWithGet(checked, at, e) : e));
        }
        long length = r.contentLength() == null ? -1 : r.contentLength();
        return new SourceHead(length, r.lastModified(), sourceVersion(r.versionId(), r.eTag()));
    }

    @Override
    public FetchedDocument fetch(URI uri, Path target, long maxBytes, UriGuard guard) throws IOException {
        URI checked = guard.check(uri);
        S3Location at = S3Location.of(checked);
        S3Client s3 = send(checked, at, this::client, false);
        ResponseInputStream<GetObjectResponse> in;
        try {
            in = send(checked, at, () -> s3.getObject(b -> b.bucket(at.bucket()).key(at.key())), true);
        } catch (S3Exception e) {
            throw S3SourceFailures.rethrow(S3SourceFailures.of(at, e));
        }
        FetchCancellation.Registration stop;
        try {
            stop = cancellation.register(in::abort);
        } catch (ShutdownException e) {
            in.abort();
            throw e;
        }
        DigestingCopy copy;
        try {
            copy = DigestingCopy.copy(new AbortUnlessRead(in), target, maxBytes);
        } catch (IOException | SdkClientException e) {
            if (cancellation.isCancelled()) {
                throw stopped(at, e);
            }
            throw S3SourceFailures.transport(at, e, "truncated_body");
        } finally {
            stop.close();
        }
        GetObjectResponse r = in.response();
        return new FetchedDocument(target, copy.bytes(), copy.sha256(), sourceVersion(r.versionId(), r.eTag()),
                r.lastModified(), ContentTypes.sniff(copy.head(), copy.headLength()));
    }

    /**
     * A HEAD's 403 or 404 carries no error code; a one-byte GET's does.
     *
     * @return the GET's refusal, to be classified instead of the HEAD's
     */
    private S3Exception askWithGet(URI uri, S3Location at, S3Exception head) throws IOException {
        try {
            send(uri, at, () -> client().getObject(b -> b.bucket(at.bucket()).key(at.key()).range("bytes=0-0")), true).abort();
        } catch (S3Exception e) {
            return e;
        }
        throw new TransientException("s3_" + head.statusCode(), "S3 answered HEAD of " + LogSafe.identity(at.toString())
                + " with HTTP " + head.statusCode() + " but GET with the object; retrying later", head);
    }

    /**
     * Takes a token (when {@code counted}: a request is sent), then runs; a failure before S3 answers is
     * transient, S3's own answer is thrown as it is.
     */
    private <T> T send(URI uri, S3Location at, Supplier<T> request, boolean counted) {
        if (cancellation.isCancelled()) {
            throw stopped(at, null);
        }
        try {
            if (counted) {
                throttle.acquire(uri);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw S3SourceFailures.transport(at, e, "interrupted");
        }
        try {
            return request.get();
        } catch (SdkClientException e) {
            throw cancellation.isCancelled() ? stopped(at, e) : S3SourceFailures.transport(at, e, "s3_request_failed");
        } catch (IllegalStateException e) {
            throw new TransientException("s3_not_configured", e.getMessage() + "; retrying later", e);
        }
    }

    private S3Client client() {
        S3Client c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    client = factory.get();
                }
                c = client;
            }
        }
        return c;
    }

    /** @return the version id where the bucket keeps versions, else the ETag */
    static String sourceVersion(String versionId, String etag) {
        return versionId != null && !versionId.isBlank() && !"null".equals(versionId) ? versionId : etag;
    }

    private static ShutdownException stopped(S3Location at, Exception e) {
        return new ShutdownException("the request for " + LogSafe.identity(at.toString())
                + " was cut short: this process is stopping; the message goes back to the queue", e);
    }

    /**
     * Closing a body before its end aborts the connection: the HTTP client would otherwise read the rest of a
     * refused (too large) body to reuse the connection.
     */
    private static final class AbortUnlessRead extends FilterInputStream {
        private final ResponseInputStream<?> body;
        private boolean ended;

        AbortUnlessRead(ResponseInputStream<?> body) {
            super(body);
            this.body = body;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            ended |= b < 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            ended |= n < 0;
            return n;
        }

        @Override
        public void close() throws IOException {
            if (!ended) {
                body.abort();
            }
            super.close();
        }
    }
}
