package org.ingestquarantine.ingest;

import org.ingestquarantine.objectstore.S3ClientSettings;
import org.ingestquarantine.pipeline.Settings;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 client of {@code s3://} sources: where S3 is from the {@code s3.*} settings ({@link S3ClientSettings},
 * shared with the payload store), the HTTP fetch's bounds and no retries of its own.
 */
public final class S3Clients {

    /** Property: the endpoint of an S3-compatible server, e.g. {@code http://127.0.0.1:9090}. */
    public static final String ENDPOINT = S3ClientSettings.ENDPOINT;
    /** Property: the region asked. */
    public static final String REGION = S3ClientSettings.REGION;

    private S3Clients() {
    }

    /**
     * The HTTP fetch's bounds ({@link HttpTimeouts}: connect, idle between reads, and the deadline of a whole call,
     * a GetObject's body read included, as its call timeout) and no retries of its own, so that every request is
     * one the source-request throttle counted and a transient failure is retried by the broker's redelivery.
     *
     * @param settings where {@code s3.*} is read
     * @param timeouts the {@code http.*} bounds
     * @return a new client; close it when done
     * @throws IllegalStateException when the settings do not make a client (no region found: set {@value #REGION})
     */
    public static S3Client forSources(Settings settings, HttpTimeouts timeouts) {
        try {
            return S3ClientSettings.from(settings::find).builder()
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
}
