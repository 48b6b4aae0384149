package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.Properties;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.Reasoned;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.S3Server;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Ensures the S3 connector reads what S3 says (size, version id or ETag, LastModified, the bytes and their
 * SHA-256), bounds a GET in size and time while reading, maps S3's answers to the failure classes, and counts
 * every request it sends; against the real S3-compatible server of start-local, and a loopback server for the
 * answers S3Mock never gives (403, SlowDown).
 */
class S3ConnectorIT {

    private static final Path PDF = Path.of("/work/shared/corpus/pdfs/c0001.pdf");
    private static final HttpTimeouts TIMEOUTS = new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2),
            Duration.ofSeconds(10), 5);

    @TempDir
    Path dir;

    @BeforeAll
    static void credentials() {
        // the SDK's default chain reads these system properties; S3Mock accepts any key
        S3Server.shared().properties().forEach((k, v) -> {
            if (k.startsWith("aws.")) {
                System.setProperty(k, v);
            }
        });
    }

    private static Settings settings(URI endpoint) {
        Map<String, String> p = new HashMap<>(S3Server.shared().properties());
        p.put(S3Clients.ENDPOINT, endpoint.toString());
        // other keys (the shared s3.* client bounds) as shipped
        Function<String, Optional<String>> shipped = ShippedProperties.lookup();
        return new Settings(k -> p.containsKey(k) ? Optional.of(p.get(k)) : shipped.apply(k));
    }

    private static S3Connector connector(URI endpoint, HttpTimeouts timeouts, SourceRequestThrottle throttle) {
        return new S3Connector(() -> S3Clients.forSources(settings(endpoint), timeouts), timeouts, throttle,
                new FetchCancellation());
    }

    private static S3Connector connector() {
        return connector(S3Server.shared().endpoint(), TIMEOUTS, SourceRequestThrottle.unlimited());
    }

    private static UriGuard allow(String entries) {
        Properties p = new Properties();
        p.setProperty("sources.docs.s3-allow", entries);
        return SourceAccess.fromProperties(p).guard("docs");
    }

    private static String reason(Throwable t) {
        return ((Reasoned) t).reasonCode();
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void shouldHeadAnUnversionedObjectWithItsSizeEtagAndLastModified() throws Exception {
        String bucket = S3Server.shared().createBucket("plain");
        try (S3Client s3 = S3Server.shared().client()) {
            s3.putObject(b -> b.bucket(bucket).key("docs/a.pdf"), RequestBody.fromString("hello", StandardCharsets.UTF_8));
        }
        SourceHead head = connector().head(URI.create("s3://" + bucket + "/docs/a.pdf"), allow(bucket));
        assertThat(head.contentLength()).isEqualTo(5);
        assertThat(head.etag()).isEqualTo("\"5d41402abc4b2a76b9719d911017c592\""); // MD5 of "hello"
        assertThat(head.updatedAt()).isBetween(Instant.now().minusSeconds(120), Instant.now().plusSeconds(5));
    }

    @Test
    void shouldTakeTheVersionIdAsTheSourceVersionOfAVersionedBucket() throws Exception {
        String bucket = S3Server.shared().createVersionedBucket("versioned");
        String second;
        try (S3Client s3 = S3Server.shared().client()) {
            s3.putObject(b -> b.bucket(bucket).key("a.pdf"), RequestBody.fromString("one", StandardCharsets.UTF_8));
            second = s3.putObject(b -> b.bucket(bucket).key("a.pdf"), RequestBody.fromString("two", StandardCharsets.UTF_8))
                    .versionId();
        }
        URI uri = URI.create("s3://" + bucket + "/a.pdf");
        assertThat(second).isNotBlank();
        assertThat(connector().head(uri, allow(bucket)).etag()).isEqualTo(second);
        assertThat(connector().fetch(uri, dir.resolve("t.bin"), 1000, allow(bucket)).sourceVersion()).isEqualTo(second);
    }

    @Test
    void shouldFetchTheBytesWithTheirSha256AndTheEtagAsVersion() throws Exception {
        String bucket = S3Server.shared().createBucket("fetch");
        byte[] pdf = Files.readAllBytes(PDF);
        String etag;
        try (S3Client s3 = S3Server.shared().client()) {
            // a key with a space and a percent sign: the URI spells them %20 and %25, decoded once
            etag = s3.putObject(b -> b.bucket(bucket).key("in/my file 100%.pdf"), RequestBody.fromBytes(pdf)).eTag();
        }
        Path target = dir.resolve("t.bin");
        FetchedDocument doc = connector().fetch(URI.create("s3://" + bucket + "/in/my%20file%20100%25.pdf"), target,
                pdf.length, allow(bucket + "/in/"));
        assertThat(doc.bytes()).isEqualTo(pdf.length);
        assertThat(doc.sha256()).isEqualTo(sha256(pdf));
        assertThat(Files.readAllBytes(target)).isEqualTo(pdf);
        assertThat(doc.sourceVersion()).isEqualTo(etag);
        assertThat(doc.contentType()).isEqualTo("application/pdf");
        assertThat(doc.sourceUpdatedAt()).isNotNull();
    }

    @Test
    void shouldRefuseADocumentGrowingPastTheLimitWhileReadingIt() throws Exception {
        String bucket = S3Server.shared().createBucket("big");
        try (S3Client s3 = S3Server.shared().client()) {
            s3.putObject(b -> b.bucket(bucket).key("big.pdf"), RequestBody.fromBytes(new byte[300_000]));
        }
        assertThatThrownBy(() -> connector().fetch(URI.create("s3://" + bucket + "/big.pdf"), dir.resolve("t.bin"),
                100_000, allow(bucket)))
                .isInstanceOf(PermanentInputException.class).extracting(S3ConnectorIT::reason).isEqualTo("too_large");
    }

    @Test
    void shouldReadAMissingObjectAsGoneAndAMissingBucketAsNotGone() {
        String bucket = S3Server.shared().createBucket("gone");
        URI missing = URI.create("s3://" + bucket + "/nothing.pdf");
        assertThatThrownBy(() -> connector().head(missing, allow(bucket))).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> connector().fetch(missing, dir.resolve("t.bin"), 1000, allow(bucket)))
                .isInstanceOf(NoSuchFileException.class);
        // a HEAD cannot tell a missing bucket from a missing key; the one-byte GET after it can
        URI noBucket = URI.create("s3://no-such-bucket-" + ProcessHandle.current().pid() + "/a.pdf");
        assertThatThrownBy(() -> connector().head(noBucket, allow(noBucket.getAuthority())))
                .isInstanceOf(PermanentInputException.class).extracting(S3ConnectorIT::reason)
                .isEqualTo("s3_no_such_bucket");
    }

    @Test
    void shouldRefuseAUriOutsideS3AllowBeforeAnyRequest() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) ->
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"))) {
            S3Connector c = connector(URI.create(server.url("")), TIMEOUTS, SourceRequestThrottle.unlimited());
            UriGuard guard = allow("reports/public/, archive");
            for (String uri : new String[] {"s3://other/public/a.pdf", "s3://reports/private/a.pdf",
                    "s3://reports/publicity.pdf", "s3://reports-2/public/a.pdf"}) {
                assertThatThrownBy(() -> c.head(URI.create(uri), guard)).as(uri)
                        .extracting(S3ConnectorIT::reason).isEqualTo("uri_not_allowed");
                assertThatThrownBy(() -> c.fetch(URI.create(uri), dir.resolve("t.bin"), 10, guard)).as(uri)
                        .extracting(S3ConnectorIT::reason).isEqualTo("uri_not_allowed");
            }
            for (String uri : new String[] {"s3://reports/public/../private/a.pdf", "s3://reports/public/%2E%2E/x.pdf",
                    "s3://reports/public/a%0A.pdf", "s3://reports/public/", "s3://reports:9000/public/a.pdf"}) {
                assertThatThrownBy(() -> c.head(URI.create(uri), guard)).as(uri)
                        .extracting(S3ConnectorIT::reason).isEqualTo("invalid_uri");
            }
            assertThat(server.connections()).isZero();
            c.head(URI.create("s3://archive/any/thing.pdf"), guard); // the whole bucket; the server answers
            assertThat(server.connections()).isEqualTo(1);
        }
    }

    @Test
    void shouldReadA403AsAccessDeniedAndRefusedCredentialsAsTransient() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> s3Error(out, head, 403,
                head.contains("/bad-key/") ? "InvalidAccessKeyId" : "AccessDenied"))) {
            S3Connector c = connector(URI.create(server.url("")), TIMEOUTS, SourceRequestThrottle.unlimited());
            assertThatThrownBy(() -> c.head(URI.create("s3://b/secret.pdf"), allow("b")))
                    .isInstanceOf(PermanentInputException.class).extracting(S3ConnectorIT::reason)
                    .isEqualTo("s3_access_denied");
            assertThatThrownBy(() -> c.fetch(URI.create("s3://b/secret.pdf"), dir.resolve("t.bin"), 10, allow("b")))
                    .isInstanceOf(PermanentInputException.class).extracting(S3ConnectorIT::reason)
                    .isEqualTo("s3_access_denied");
            assertThatThrownBy(() -> c.head(URI.create("s3://b/bad-key/a.pdf"), allow("b")))
                    .isInstanceOf(TransientException.class).extracting(S3ConnectorIT::reason)
                    .isEqualTo("s3_credentials_refused");
        }
    }

    @Test
    void shouldReadSlowDownAndServerErrorsAsTransient() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            if (head.contains("/broken")) {
                s3Error(out, head, 500, "InternalError");
            } else {
                s3Error(out, head, 503, "SlowDown");
            }
        })) {
            S3Connector c = connector(URI.create(server.url("")), TIMEOUTS, SourceRequestThrottle.unlimited());
            assertThatThrownBy(() -> c.head(URI.create("s3://b/a.pdf"), allow("b")))
                    .isInstanceOf(TransientException.class).extracting(S3ConnectorIT::reason).isEqualTo("s3_slow_down");
            assertThatThrownBy(() -> c.fetch(URI.create("s3://b/a.pdf"), dir.resolve("t.bin"), 10, allow("b")))
                    .isInstanceOf(TransientException.class).extracting(S3ConnectorIT::reason).isEqualTo("s3_slow_down");
            assertThatThrownBy(() -> c.fetch(URI.create("s3://b/broken.pdf"), dir.resolve("t.bin"), 10, allow("b")))
                    .isInstanceOf(TransientException.class).extracting(S3ConnectorIT::reason).isEqualTo("s3_500");
            // the client retries nothing itself: one connection per request (RawHttpServer closes each)
            assertThat(server.connections()).isEqualTo(3);
        }
    }

    @Test
    void shouldReadARefusedConnectionAsTransient() {
        S3Connector c = connector(URI.create("http://127.0.0.1:" + FreePort.find()), TIMEOUTS,
                SourceRequestThrottle.unlimited());
        assertThatThrownBy(() -> c.head(URI.create("s3://b/a.pdf"), allow("b")))
                .isInstanceOf(TransientException.class).extracting(S3ConnectorIT::reason).isEqualTo("connection_refused");
    }

    @Test
    void shouldEndADrippingBodyAtTheBodyDeadline() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nETag: \"e\"\r\n\r\n");
            for (int i = 0; i < 1000; i++) {
                RawHttpServer.write(out, "x");
                Thread.sleep(100);
            }
        })) {
            // a byte every 100 ms never trips the idle timeout; only the deadline ends the body
            HttpTimeouts tight = new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(3), 5);
            S3Connector c = connector(URI.create(server.url("")), tight, SourceRequestThrottle.unlimited());
            c.head(URI.create("s3://b/a.pdf"), allow("b")); // the SDK's first request is slow: not in the measure
            long began = System.nanoTime();
            assertThatThrownBy(() -> c.fetch(URI.create("s3://b/a.pdf"), dir.resolve("t.bin"), 1_000_000, allow("b")))
                    .isInstanceOf(TransientException.class).extracting(S3ConnectorIT::reason).isEqualTo("timeout");
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(6));
            assertThat(Thread.currentThread().isInterrupted()).as("the deadline leaves no interrupt behind").isFalse();
        }
    }

    @Test
    void shouldCountEveryRequestThe404PathSendsThroughTheThrottle() {
        String bucket = S3Server.shared().createBucket("counted");
        // 4 per second, no headroom: a token every 250 ms, the first at hand
        S3Connector c = connector(S3Server.shared().endpoint(), TIMEOUTS, SourceRequestThrottle.local(4, 0));
        long began = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            URI missing = URI.create("s3://" + bucket + "/missing-" + i + ".pdf");
            assertThatThrownBy(() -> c.head(missing, allow(bucket))).isInstanceOf(NoSuchFileException.class);
        }
        // 3 HEADs and the 3 GETs after them: 6 tokens, 5 waits; were only the HEADs counted, 2
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(1200));
    }

    /** Answers as S3 does: a HEAD's error without a body, a GET's with S3's error XML. */
    private static void s3Error(java.io.OutputStream out, String head, int status, String code) throws Exception {
        String reasonPhrase = status == 403 ? "Forbidden" : status == 503 ? "Slow Down" : "Internal Server Error";
        if (head.startsWith("HEAD")) {
            RawHttpServer.write(out, "HTTP/1.1 " + status + " " + reasonPhrase + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            return;
        }
        String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + code
                + "</Message><RequestId>r1</RequestId><HostId>h1</HostId></Error>";
        RawHttpServer.write(out, "HTTP/1.1 " + status + " " + reasonPhrase + "\r\nContent-Type: application/xml\r\n"
                + "Content-Length: " + xml.length() + "\r\nConnection: close\r\n\r\n" + xml);
    }
}
