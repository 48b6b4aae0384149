package org.ingestquarantine.testsupport;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;

/**
 * The S3-compatible server of {@code broker-configs/s3/start-local} (S3Mock), one per test JVM on a free loopback
 * port, its objects under {@code target/s3-local}; started on first use and stopped when the JVM exits.
 *
 * <pre>{@code
 * S3Server s3 = S3Server.shared();
 * String bucket = s3.createBucket("payloads");        // a new bucket, unique to the caller
 * Map<String, String> props = s3.properties();       // s3.endpoint-url, s3.region, credentials, path style
 * }</pre>
 */
public final class S3Server {

    /** The launcher, relative to the project root (the working directory of Maven's tests). */
    public static final Path START_LOCAL = Path.of("broker-configs", "s3", "start-local");
    /** The region the server answers for. */
    public static final String REGION = "us-east-1";
    /** Any key is accepted (S3Mock does not check signatures); these are the ones the tests send. */
    public static final String ACCESS_KEY = "local";
    private static final String SECRET_KEY = "local";
    private static final Duration START_LIMIT = Duration.ofMinutes(3);

    private static S3Server shared;

    private final int port;
    private final Map<String, String> env;
    private int buckets;

    private S3Server(int port) {
        this.port = port;
        this.env = Map.of("S3_PORT", Integer.toString(port), "S3_BUCKETS", "iq-test",
                "S3_DIR", Path.of("target", "s3-local", Integer.toString(port)).toAbsolutePath().toString());
    }

    /** @return the JVM's server, started now if this is the first use */
    public static synchronized S3Server shared() {
        if (shared == null) {
            S3Server server = new S3Server(FreePort.find());
            server.run("start");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> server.run("stop"), "s3-local-stop"));
            shared = server;
        }
        return shared;
    }

    private String run(String verb) {
        Exec result = Exec.run(List.of("bash", START_LOCAL.toString(), verb), env, START_LIMIT);
        if (result.exitCode() != 0) {
            throw new IllegalStateException(START_LOCAL + " " + verb + " exited " + result.exitCode() + ":\n"
                    + result.output());
        }
        return result.output();
    }

    /** @return the endpoint, e.g. {@code http://127.0.0.1:40123} */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** @return the port */
    public int port() {
        return port;
    }

    /**
     * @return the properties that point the product at this server (endpoint, region, path-style access and the
     *     credentials the SDK's default chain reads from system properties)
     */
    public Map<String, String> properties() {
        return Map.of("s3.endpoint-url", endpoint().toString(), "s3.region", REGION, "s3.path-style-access", "true",
                "aws.accessKeyId", ACCESS_KEY, "aws.secretAccessKey", SECRET_KEY);
    }

    /**
     * Makes the SDK's default credentials chain find this server's keys in this JVM (system properties
     * {@code aws.accessKeyId} and {@code aws.secretAccessKey}), for product code built in a test; a child process
     * gets them from {@link #properties()} as {@code -D} settings.
     */
    public void exportCredentials() {
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", SECRET_KEY);
    }

    /** @return a client of this server; close it */
    public S3Client client() {
        return S3Client.builder().endpointOverride(endpoint()).region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .forcePathStyle(true).build();
    }

    /**
     * @param prefix a readable part of the name
     * @return the name of a new, empty bucket that no other caller in this JVM gets
     */
    public synchronized String createBucket(String prefix) {
        String name = (prefix + "-" + ProcessHandle.current().pid() + "-" + (++buckets)).toLowerCase();
        try (S3Client s3 = client()) {
            s3.createBucket(b -> b.bucket(name));
        }
        return name;
    }

    /**
     * @param prefix a readable part of the name
     * @return a new bucket with versioning enabled (each PUT gets a version id)
     */
    public String createVersionedBucket(String prefix) {
        String name = createBucket(prefix);
        try (S3Client s3 = client()) {
            s3.putBucketVersioning(b -> b.bucket(name).versioningConfiguration(v -> v.status(BucketVersioningStatus.ENABLED)));
        }
        return name;
    }
}
