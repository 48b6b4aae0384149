package org.ingestquarantine.ingest;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A ceiling on requests to a source, counted per origin ({@code scheme://host:port}; every {@code file:} URI
 * is one origin): HEAD and GET both take one token, whatever they answer (a 404 too). Tokens come one at a
 * time, {@code (1 s / rate) * (1 + headroom)} apart (a bucket of capacity 1 with greedy refill), so no
 * one-second window holds more than {@code rate} requests even as the server sees them: the headroom
 * (property {@value #HEADROOM_PROPERTY}) absorbs network jitter, such as a first request slowed by its
 * connection set-up, that would otherwise squeeze {@code rate + 1} requests into one second at the server. {@link #sharedInPostgres} keeps the buckets in PostgreSQL (table
 * {@code source_request_buckets}, bucket4j's advisory-lock proxy manager), so every process asking the same
 * origin (live consumers, drains) draws from ONE bucket. Thread-safe.
 */
public final class SourceRequestThrottle {

    /** Property naming the spacing headroom, percent of {@code 1 s / rate}. */
    public static final String HEADROOM_PROPERTY = "source-requests.spacing-headroom-percent";

    private final Function<String, Bucket> bucketOfOrigin;

    private SourceRequestThrottle(Function<String, Bucket> bucketOfOrigin) {
        this.bucketOfOrigin = bucketOfOrigin;
    }

    /** @return a throttle that never waits */
    public static SourceRequestThrottle unlimited() {
        return new SourceRequestThrottle(origin -> null);
    }

    /**
     * @param requestsPerSecond the ceiling per origin, positive
     * @param headroomPercent extra spacing, percent of {@code 1 s / rate}; 0 or more
     * @return buckets held in this process only
     * @throws IllegalArgumentException if the rate is not positive or the headroom negative
     */
    public static SourceRequestThrottle local(double requestsPerSecond, double headroomPercent) {
        BucketConfiguration configuration = configuration(requestsPerSecond, headroomPercent);
        Map<String, Bucket> buckets = new ConcurrentHashMap<>();
        return new SourceRequestThrottle(origin -> buckets.computeIfAbsent(origin,
                o -> Bucket.builder().addLimit(configuration.getBandwidths()[0]).build()));
    }

    /**
     * @param dataSource a pool on the migrated schema (table {@code source_request_buckets})
     * @param requestsPerSecond the ceiling per origin, positive; every process sharing a bucket must use the
     *     same ceiling (the first to create a bucket's row sets it)
     * @param headroomPercent extra spacing, percent of {@code 1 s / rate}; 0 or more
     * @return buckets shared through PostgreSQL
     * @throws IllegalArgumentException if the rate is not positive or the headroom negative
     */
    public static SourceRequestThrottle sharedInPostgres(DataSource dataSource, double requestsPerSecond,
                                                         double headroomPercent) {
        BucketConfiguration configuration = configuration(requestsPerSecond, headroomPercent);
        ProxyManager<Long> buckets = Bucket4jPostgreSQL.advisoryLockBasedBuilder(dataSource)
                .table("source_request_buckets").build();
        Map<String, Bucket> proxies = new ConcurrentHashMap<>();
        return new SourceRequestThrottle(origin -> proxies.computeIfAbsent(origin,
                o -> buckets.builder().build(key(o), () -> configuration)));
    }

    private static BucketConfiguration configuration(double requestsPerSecond, double headroomPercent) {
        if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
            throw new IllegalArgumentException("a request rate must be a positive number per second, was "
                    + requestsPerSecond);
        }
        if (!(headroomPercent >= 0)) {
            throw new IllegalArgumentException(HEADROOM_PROPERTY + " must be 0 or more, was " + headroomPercent);
        }
        Duration spacing = spacing(requestsPerSecond, headroomPercent);
        return BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(1).refillGreedy(1, spacing).initialTokens(1).build())
                .build();
    }

    /**
     * The time between two tokens of one origin: {@code (1 s / rate) * (1 + headroom / 100)}, at least 1 ns. N
     * requests in a row go out over {@code (N - 1) * spacing} at least (the first token is at hand).
     *
     * @param requestsPerSecond the ceiling, positive
     * @param headroomPercent extra spacing, percent of {@code 1 s / rate}; 0 or more
     * @return the spacing
     */
    public static Duration spacing(double requestsPerSecond, double headroomPercent) {
        return Duration.ofNanos(Math.max(1, Math.round(1e9 / requestsPerSecond * (1 + headroomPercent / 100.0))));
    }

    /**
     * Waits for one request's token for the URI's origin.
     *
     * @param uri the document about to be asked for
     * @throws InterruptedException if interrupted while waiting; no token was taken
     */
    public void acquire(URI uri) throws InterruptedException {
        Bucket bucket = bucketOfOrigin.apply(origin(uri));
        if (bucket != null) {
            bucket.asBlocking().consume(1);
        }
    }

    /**
     * @param connector a source connector
     * @return the same connector taking one token before every HEAD and every GET
     */
    public SourceConnector around(SourceConnector connector) {
        SourceRequestThrottle throttle = this;
        return new SourceConnector() {
            @Override
            public String scheme() {
                return connector.scheme();
            }

            @Override
            public String version() {
                return connector.version();
            }

            @Override
            public SourceHead head(URI uri, UriGuard guard) throws IOException {
                throttle.acquireInterruptibly(uri);
                return connector.head(uri, guard);
            }

            @Override
            public FetchedDocument fetch(URI uri, Path target, long maxBytes, UriGuard guard) throws IOException {
                throttle.acquireInterruptibly(uri);
                return connector.fetch(uri, target, maxBytes, guard);
            }
        };
    }

    private void acquireInterruptibly(URI uri) throws InterruptedIOException {
        try {
            acquire(uri);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a request token of " + origin(uri));
        }
    }

    /**
     * @param uri a document URI
     * @return {@code scheme://host:port} in lower case ({@code s3://bucket:-1} for an S3 object, whatever its
     *     bucket's name), or {@code file:} for local files
     */
    public static String origin(URI uri) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (uri.getHost() == null) {
            // a bucket name that is no host name (an underscore) still has its own bucket of tokens
            return "s3".equals(scheme) && uri.getRawAuthority() != null
                    ? scheme + "://" + uri.getRawAuthority().toLowerCase(Locale.ROOT) + ":-1" : scheme + ":";
        }
        return scheme + "://" + uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort();
    }

    /** A stable 64-bit key of an origin (FNV-1a), the bucket's row id. */
    private static long key(String origin) {
        long hash = 0xcbf29ce484222325L;
        for (byte b : origin.getBytes(StandardCharsets.UTF_8)) {
            hash ^= b;
            hash *= 0x100000001b3L;
        }
        return hash;
    }
}
