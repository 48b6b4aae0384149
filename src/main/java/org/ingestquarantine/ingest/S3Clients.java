package org.ingestquarantine.ingest;

import java.net.URI;
import java.util.Optional;
import org.ingestquarantine.pipeline.Settings;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * S3 clients from the {@code s3.*} settings: {@value #ENDPOINT} (an S3-compatible server; unset = AWS),
 * {@value #REGION} (unset = the SDK's region chain: {@code AWS_REGION}, the profile), {@value #PATH_STYLE}
 * ({@code true} for most S3-compatible servers; unset = virtual-hosted addressing, as AWS prefers). Credentials always come from the SDK's default chain
 * (environment, {@code aws.accessKeyId} system properties, profile, container or instance role) and are never
 * logged here.
 */
public final class S3Clients {

    /** Property: the endpoint of an S3-compatible server, e.g. {@code http://127.0.0.1:9090}. */
    public static final String ENDPOINT = "s3.endpoint-url";
    /** Property: the region asked. */
    public static final String REGION = "s3.region";
    /** Property: {@code true} addresses buckets as {@code endpoint/bucket}, not {@code bucket.endpoint}. */
    public static final String PATH_STYLE = "s3.path-style-access";

    private S3Clients() {
    }

    /**
     * @param settings where {@code s3.*} is read
     * @return a builder with the endpoint, region, addressing and credential chain set
     * @throws IllegalStateException when {@value #ENDPOINT} is not an absolute http(s) URL
     */
    public static S3ClientBuilder builder(Settings settings) {
        S3ClientBuilder b = S3Client.builder().credentialsProvider(DefaultCredentialsProvider.builder().build())
                .forcePathStyle(settings.find(PATH_STYLE).map(v -> Boolean.parseBoolean(v.trim())).orElse(false));
        settings.find(REGION).map(String::trim).filter(r -> !r.isEmpty()).map(Region::of).ifPresent(b::region);
        endpoint(settings).ifPresent(b::endpointOverride);
        return b;
    }

    /**
     * The client of {@code s3://} sources: the HTTP fetch's bounds ({@link HttpTimeouts}: connect, idle between
     * reads, and the deadline of a whole call, a GetObject's body read included, as its call timeout) and
     * no retries of its own, so that every request is one the source-request throttle counted and a transient
     * failure is retried by the broker's redelivery.
     *
     * @param settings where {@code s3.*} is read
     * @param timeouts the {@code http.*} bounds
     * @return a new client; close it when done
     * @throws IllegalStateException when the settings do not make a client (no region found: set {@value #REGION})
     */
    public static S3Client forSources(Settings settings, HttpTimeouts timeouts) {
        try {
            return builder(settings)
                    .httpClientBuilder(ApacheHttpClient.builder().connectionTimeout(timeouts.connect())
                            .socketTimeout(timeouts.idle()).connectionAcquisitionTimeout(timeouts.connect()))
                    .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                            .apiCallTimeout(timeouts.bodyDeadline()))
                    .build();
        } catch (SdkClientException e) {
            throw new IllegalStateException("no S3 client could be made (" + e.getMessage() + "); set " + REGION
                    + " (and " + ENDPOINT + " for an S3-compatible server)", e);
        }
    }

    private static Optional<URI> endpoint(Settings settings) {
        return settings.find(ENDPOINT).map(String::trim).filter(v -> !v.isEmpty()).map(v -> {
            URI uri;
            try {
                uri = URI.create(v);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(ENDPOINT + ": '" + v + "' is not a URL", e);
            }
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new IllegalStateException(ENDPOINT + ": '" + v + "' is not an http(s)://host[:port] URL");
            }
            return uri;
        });
    }
}
