package org.ingestquarantine.ingest;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.EstimationProbe;
import io.github.bucket4j.TokensInheritanceStrategy;
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
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * A ceiling on requests to a source, counted per origin ({@code scheme://host:port}; every {@code file:} URI
 * is one origin): HEAD and GET both take one token, whatever they answer (a 404 too).
 *
 * <p>A bucket holds at most {@code reserve + 1} tokens (property {@value #LIVE_RESERVE_PROPERTY}; 0 for a
 * drain's own {@link #local} bucket) and refills greedily, one token every
 * {@code (1 s / (rate - reserve)) * (1 + headroom)} ({@link #spacing}), so no one-second window holds more than
 * {@code reserve + 1 + floor((rate - reserve) / (1 + headroom))} requests, which is at most {@code rate} even as
 * the server sees them: the headroom (property {@value #HEADROOM_PROPERTY}) absorbs network jitter, such as a first
 * request slowed by its connection set-up, that would otherwise squeeze one request more into one second at the
 * server.
 *
 * <p>The live path has priority: {@link #acquire} (the live connectors) waits for the next token, while the
 * view {@link #slackOnly()} (the drain) takes one only when the bucket holds {@code reserve + 1} (bucket4j's
 * {@code estimateAbilityToConsume}, then {@code tryConsume}), so a live burst of up to {@code reserve} requests
 * (a HEAD and its GET) never waits for a drain. The check and the take are two steps: a live request between them
 * leaves the drain's token taken from {@code reserve} (one token of it per such race). A drain uses only the
 * bucket's slack: when the live path takes the whole refill, the drain waits.
 *
 * <p>{@link #sharedInPostgres} keeps the buckets in PostgreSQL (table {@code source_request_buckets}, bucket4j's
 * advisory-lock proxy manager): the bucket's state lives only in its row, so every process asking the same origin
 * (several {@code run} consumers, drains) draws from ONE bucket, and the priority holds across processes. Their
 * ceiling and reserve must agree: the configuration a bucket's row holds is the one of the process that created it
 * (rows of the earlier one-token layout are replaced). Thread-safe.
 */
public final class SourceRequestThrottle {

    /** Property naming the spacing headroom, percent of {@code 1 s / rate}. */
    public static final String HEADROOM_PROPERTY = "source-requests.spacing-headroom-percent";

    /** Property naming the live path's reserve: requests a drain leaves in the bucket. */
    public static final String LIVE_RESERVE_PROPERTY = "source-requests.live-reserve";

    /**
     * The layout of a shared bucket's configuration (capacity {@code reserve + 1}); a row written by an earlier
     * layout is replaced when first used ({@code withImplicitConfigurationReplacement}).
     */
    private static final long BUCKET_LAYOUT_VERSION = 2;

    private final Function<String, Bucket> bucketOfOrigin;
    private final int reserve;
    private final Duration spacing;
    /** Whether this throttle takes only the slack, leaving {@code reserve} tokens (the drain's view). */
    private final boolean slackOnly;

    private SourceRequestThrottle(Function<String, Bucket> bucketOfOrigin, int reserve, Duration spacing,
                                  boolean slackOnly) {
        this.bucketOfOrigin = bucketOfOrigin;
        this.reserve = reserve;
        this.spacing = spacing;
        this.slackOnly = slackOnly;
    }

    /** @return a throttle that never waits */
    public static SourceRequestThrottle unlimited() {
        return new SourceRequestThrottle(origin -> null, 0, Duration.ZERO, false);
    }

    /**
     * @param requestsPerSecond the ceiling per origin, positive
     * @param headroomPercent extra spacing, percent of {@code 1 s / rate}; 0 or more
     * @return buckets held in this process only
     * @throws IllegalArgumentException if the rate is not positive or the headroom negative
     */
    public static SourceRequestThrottle local(double requestsPerSecond, double headroomPercent) {
        BucketConfiguration configuration = configuration(requestsPerSecond, headroomPercent, 0);
        Map<String, Bucket> buckets = new ConcurrentHashMap<>();
        return new SourceRequestThrottle(origin -> buckets.computeIfAbsent(origin,
                o -> Bucket.builder().addLimit(configuration.getBandwidths()[0]).build()), 0,
                spacing(requestsPerSecond, headroomPercent), false);
    }

    /**
     * @param dataSource a pool on the migrated schema (table {@code source_request_buckets})
     * @param requestsPerSecond the ceiling per origin, positive; every process sharing a bucket must use the
     *     same ceiling (the first to create a bucket's row sets it)
     * @param headroomPercent extra spacing, percent of {@code 1 s / (rate - reserve)}; 0 or more
     * @param liveReserve requests a drain leaves in the bucket for the live path (property
     *     {@value #LIVE_RESERVE_PROPERTY}); 0 or more, below the rate
     * @return buckets shared through PostgreSQL; {@link #acquire} is the live path's
     * @throws IllegalArgumentException if the rate is not positive, the headroom negative or the reserve outside
     *     {@code [0, rate)}
     */
    public static SourceRequestThrottle sharedInPostgres(DataSource dataSource, double requestsPerSecond,
                                                         double headroomPercent, int liveReserve) {
        BucketConfiguration configuration = configuration(requestsPerSecond, headroomPercent, liveReserve);
        ProxyManager<Long> buckets = Bucket4jPostgreSQL.advisoryLockBasedBuilder(dataSource)
                .table("source_request_buckets").build();
        Map<String, Bucket> proxies = new ConcurrentHashMap<>();
        return new SourceRequestThrottle(origin -> proxies.computeIfAbsent(origin,
                o -> buckets.builder().withImplicitConfigurationReplacement(BUCKET_LAYOUT_VERSION,
                        TokensInheritanceStrategy.AS_IS).build(key(o), () -> configuration)), liveReserve,
                spacing(requestsPerSecond - liveReserve, headroomPercent), false);
    }

    /**
     * @return a view on the same buckets that takes a token only when the bucket holds its reserve and one more,
     *     leaving the reserve to the live path (the drain's way of taking tokens); the same throttle when it has
     *     no buckets or is such a view already
     */
    public SourceRequestThrottle slackOnly() {
        return slackOnly || spacing.isZero() ? this : new SourceRequestThrottle(bucketOfOrigin, reserve, spacing, true);
    }

    private static BucketConfiguration configuration(double requestsPerSecond, double headroomPercent,
                                                     int liveReserve) {
        if (!(requestsPerSecond > 0) || Double.isInfinite(requestsPerSecond)) {
            throw new IllegalArgumentException("a request rate must be a positive number per second, was "
                    + requestsPerSecond);
        }
        if (!(headroomPercent >= 0)) {
            throw new IllegalArgumentException(HEADROOM_PROPERTY + " must be 0 or more, was " + headroomPercent);
        }
        if (liveReserve < 0 || liveReserve >= requestsPerSecond) {
            throw new IllegalArgumentException(LIVE_RESERVE_PROPERTY + " must be 0 or more and below the ceiling of "
                    + requestsPerSecond + " requests per second, was " + liveReserve);
        }
        return BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(liveReserve + 1L)
                        .refillGreedy(1, spacing(requestsPerSecond - liveReserve, headroomPercent))
                        .initialTokens(liveReserve + 1L).build())
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
     * Waits for one request's token for the URI's origin: the next one (the live path), or, from the
     * {@link #slackOnly()} view, one that leaves the reserve in the bucket.
     *
     * @param uri the document about to be asked for
     * @throws InterruptedException if interrupted while waiting; no token was taken
     */
    public void acquire(URI uri) throws InterruptedException {
        Bucket bucket = bucketOfOrigin.apply(origin(uri));
        if (bucket == null) {
            return;
        }
        if (!slackOnly) {
            bucket.asBlocking().consume(1);
            return;
        }
        while (true) {
            EstimationProbe full = bucket.estimateAbilityToConsume(reserve + 1L);
            if (full.canBeConsumed() && bucket.tryConsume(1)) {
                return;
            }
            // until the bucket would hold its reserve and one more if nobody took a token meanwhile
            long wait = full.canBeConsumed() ? spacing.toNanos() : full.getNanosToWaitForRefill();
            TimeUnit.NANOSECONDS.sleep(Math.max(1, Math.min(wait, (reserve + 1L) * spacing.toNanos())));
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
