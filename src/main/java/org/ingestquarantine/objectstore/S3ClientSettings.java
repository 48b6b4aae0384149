package org.ingestquarantine.objectstore;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * How this process reaches S3 or an S3-compatible server, from the {@code s3.*} settings; one place for the
 * payload store and the S3 document connector alike. Credentials come from the AWS SDK's default chain
 * (environment {@code AWS_ACCESS_KEY_ID} / {@code AWS_SECRET_ACCESS_KEY}, system properties {@code aws.accessKeyId}
 * / {@code aws.secretAccessKey}, a profile, instance roles), never from our own settings, and are never logged.
 *
 * <p>Settings ({@code application.properties}): {@value #ENDPOINT} (empty: AWS's own endpoint for the region),
 * {@value #REGION} (empty: the SDK's region chain, e.g. {@code AWS_REGION}), {@value #PATH_STYLE} (true for most
 * S3-compatible servers), {@value #CONNECT_TIMEOUT}, {@value #SOCKET_TIMEOUT} and {@value #MAX_ATTEMPTS}.
 *
 * <p>Checksums: the SDK computes and validates its own request and response checksums only where S3 requires them
 * ({@code WHEN_REQUIRED}): since SDK 2.30 it would otherwise add a CRC32 trailer with chunked encoding to every
 * upload, which several S3-compatible servers refuse. A caller that wants an upload verified sends its own
 * checksum (the payload store sends the object's SHA-256).
 *
 * @param endpoint the endpoint override, if any
 * @param region the region, if set
 * @param pathStyle whether buckets go in the path rather than the host name
 * @param connectTimeout to open a connection
 * @param socketTimeout without a byte on an open connection
 * @param maxAttempts tries per call, the first included (the SDK's standard retry strategy)
 */
public record S3ClientSettings(Optional<URI> endpoint, Optional<String> region, boolean pathStyle,
                               Duration connectTimeout, Duration socketTimeout, int maxAttempts) {

    /** The endpoint override, e.g. {@code http://127.0.0.1:9090}. */
    public static final String ENDPOINT = "s3.endpoint-url";
    /** The region. */
    public static final String REGION = "s3.region";
    /** Path-style access (true/false). */
    public static final String PATH_STYLE = "s3.path-style-access";
    /** Milliseconds to open a connection. */
    public static final String CONNECT_TIMEOUT = "s3.connect-timeout-ms";
    /** Milliseconds without a byte on an open connection. */
    public static final String SOCKET_TIMEOUT = "s3.socket-timeout-ms";
    /** Tries per call. */
    public static final String MAX_ATTEMPTS = "s3.max-attempts";

    /**
     * @param find a setting's value by key, empty when unset or blank
     * @return the settings
     * @throws IllegalStateException naming the setting when one is malformed or a number is missing
     */
    public static S3ClientSettings from(Function<String, Optional<String>> find) {
        Optional<URI> endpoint = find.apply(ENDPOINT).map(String::trim).filter(v -> !v.isEmpty()).map(v -> {
            try {
                URI uri = URI.create(v);
                if (uri.getScheme() == null || uri.getHost() == null
                        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
                    throw new IllegalArgumentException("not an http(s) URL");
                }
                return uri;
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(ENDPOINT + " must be an http(s) URL such as http://127.0.0.1:9090,"
                        + " was '" + v + "'");
            }
        });
        Optional<String> region = find.apply(REGION).map(String::trim).filter(v -> !v.isEmpty());
        boolean pathStyle = Boolean.parseBoolean(find.apply(PATH_STYLE).map(String::trim).orElse("false"));
        return new S3ClientSettings(endpoint, region, pathStyle, Duration.ofMillis(number(find, CONNECT_TIMEOUT)),
                Duration.ofMillis(number(find, SOCKET_TIMEOUT)), (int) number(find, MAX_ATTEMPTS));
    }

    private static long number(Function<String, Optional<String>> find, String key) {
        String value = find.apply(key).map(String::trim).filter(v -> !v.isEmpty()).orElseThrow(() ->
                new IllegalStateException("property " + key + " is required; set it in application.properties or as -D"
                        + key + "=..."));
        try {
            long n = Long.parseLong(value);
            if (n < 1) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalStateException("property " + key + " must be a whole number above 0, was '" + value + "'");
        }
    }

    /** @return where requests go, for messages: the endpoint override, else {@code AWS S3 (<region>)} */
    public String describeEndpoint() {
        return endpoint.map(URI::toString).orElse("AWS S3 (" + region.orElse("default region") + ")");
    }

    /**
     * @return a new client; close it
     * @throws IllegalStateException naming {@value #REGION} when no region is set and the SDK's chain finds none
     */
    public S3Client newClient() {
        return builder()
                .httpClientBuilder(ApacheHttpClient.builder().connectionTimeout(connectTimeout).socketTimeout(socketTimeout))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .maxAttempts(maxAttempts).build()))
                .build();
    }

    /**
     * @return a builder with where and how to reach S3 set (region, endpoint, addressing, credential chain,
     *     checksums), for a caller that sets its own HTTP client and retries (the S3 document connector: the
     *     HTTP fetch's bounds, no retries of its own)
     * @throws IllegalStateException naming {@value #REGION} when no region is set and the SDK's chain finds none
     */
    public S3ClientBuilder builder() {
        S3ClientBuilder b = S3Client.builder()
                .region(resolveRegion())
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .forcePathStyle(pathStyle)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        endpoint.ifPresent(b::endpointOverride);
        return b;
    }

    private Region resolveRegion() {
        if (region.isPresent()) {
            return Region.of(region.get());
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (RuntimeException e) {
            throw new IllegalStateException("no S3 region: set " + REGION + " (or AWS_REGION)");
        }
    }
}
