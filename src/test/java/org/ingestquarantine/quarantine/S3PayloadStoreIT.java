package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.objectstore.S3ClientSettings;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.S3Server;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;

/**
 * The S3 payload store against a real S3-compatible server on loopback (S3Mock, {@link S3Server}): content-addressed
 * keys, SHA-256 sent on upload and checked on read, one upload per content, every version removed on delete, and
 * nothing outside its bucket and prefix.
 */
class S3PayloadStoreIT {

    private static final S3Server S3 = S3Server.shared();

    @TempDir
    Path temp;

    @BeforeAll
    static void credentials() {
        S3.exportCredentials();
    }

    /** @return the shipped settings pointed at the test server, with {@code more} on top */
    static S3ClientSettings settings(Map<String, String> more) {
        Map<String, String> overrides = new HashMap<>(S3.properties());
        overrides.putAll(more);
        return S3ClientSettings.from(ProfileProperties.load("embedded", overrides)::find);
    }

    private static S3PayloadStore store(String bucket, String prefix) {
        return new S3PayloadStore(settings(Map.of()), bucket, prefix);
    }

    @Test
    void shouldStoreBytesUnderTheirSha256WithS3VerifyingTheChecksum() throws Exception {
        String bucket = S3.createBucket("payloads");
        try (S3PayloadStore store = store(bucket, "/quarantine/"); S3Client raw = S3.client()) {
            StoredObject o = store.put("hello".getBytes(StandardCharsets.UTF_8));

            String hash = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
            assertThat(o).isEqualTo(new StoredObject("s3://" + bucket + "/quarantine/2c/" + hash, hash, 5));
            assertThat(store.get(o.uri())).asString(StandardCharsets.UTF_8).isEqualTo("hello");
            assertThat(store.exists(o.uri())).isTrue();
            // the SHA-256 went with the upload: the server kept the checksum it verified
            String kept = raw.headObject(b -> b.bucket(bucket).key("quarantine/2c/" + hash)
                    .checksumMode(ChecksumMode.ENABLED)).checksumSHA256();
            assertThat(kept).isEqualTo(Base64.getEncoder().encodeToString(HexFormat.of().parseHex(hash)));
        }
    }

    @Test
    void shouldStreamAFileAndStoreTheSameBytesOnce() throws Exception {
        String bucket = S3.createVersionedBucket("payloads");
        byte[] content = new byte[3 * 1024 * 1024 + 17];
        new Random(7).nextBytes(content);
        Path file = Files.write(temp.resolve("big.pdf"), content);
        try (S3PayloadStore store = store(bucket, ""); S3Client raw = S3.client()) {
            StoredObject fromFile = store.put(file);
            StoredObject fromBytes = store.put(content);
            StoredObject again = store.put(file);

            assertThat(fromFile).isEqualTo(fromBytes).isEqualTo(again);
            assertThat(fromFile.bytes()).isEqualTo(content.length);
            assertThat(store.get(fromFile.uri())).isEqualTo(content);
            // one object, one version: the second and third put found it (HEAD) and sent nothing
            ListObjectVersionsResponse versions = raw.listObjectVersions(b -> b.bucket(bucket));
            assertThat(versions.versions()).hasSize(1);
        }
    }

    @Test
    void shouldFailAReadWhoseBytesAreNotTheOnesTheKeyNames() throws Exception {
        String bucket = S3.createBucket("payloads");
        try (S3PayloadStore store = store(bucket, "p"); S3Client raw = S3.client()) {
            StoredObject o = store.put("the evidence".getBytes(StandardCharsets.UTF_8));
            String key = o.uri().substring(("s3://" + bucket + "/").length());
            raw.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("tampered", StandardCharsets.UTF_8));

            assertThatThrownBy(() -> store.get(o.uri())).isInstanceOf(PayloadCorruptException.class)
                    .hasMessageContaining(o.uri()).hasMessageContaining("damaged");
        }
    }

    @Test
    void shouldDeleteEveryVersionOfTheKey() throws Exception {
        String bucket = S3.createVersionedBucket("erase");
        try (S3PayloadStore store = store(bucket, "q"); S3Client raw = S3.client()) {
            StoredObject o = store.put("secret".getBytes(StandardCharsets.UTF_8));
            StoredObject other = store.put("kept".getBytes(StandardCharsets.UTF_8));
            String key = o.uri().substring(("s3://" + bucket + "/").length());
            // an older version of the same key, as a second writer or a tool would leave
            raw.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("secret", StandardCharsets.UTF_8));

            assertThat(store.delete(o.uri())).isTrue();

            ListObjectVersionsResponse left = raw.listObjectVersions(b -> b.bucket(bucket).prefix(key));
            assertThat(left.versions()).isEmpty();
            assertThat(left.deleteMarkers()).isEmpty();
            assertThat(store.exists(o.uri())).isFalse();
            assertThatThrownBy(() -> store.get(o.uri())).isInstanceOf(NoSuchFileException.class);
            assertThat(store.get(other.uri())).asString(StandardCharsets.UTF_8).isEqualTo("kept");
            assertThat(store.delete(o.uri())).isFalse();
        }
    }

    @Test
    void shouldDeleteInABucketWithoutVersioning() throws Exception {
        String bucket = S3.createBucket("plain");
        try (S3PayloadStore store = store(bucket, ""); S3Client raw = S3.client()) {
            StoredObject o = store.put("secret".getBytes(StandardCharsets.UTF_8));

            assertThat(store.delete(o.uri())).isTrue();

            assertThat(raw.listObjectsV2(b -> b.bucket(bucket)).contents()).isEmpty();
        }
    }

    @Test
    void shouldRefuseUrisOutsideItsBucketAndPrefix() {
        String bucket = S3.createBucket("confined");
        String hash = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";
        try (S3PayloadStore store = store(bucket, "mine")) {
            for (String uri : new String[] {"s3://other-bucket/mine/2c/" + hash, "s3://" + bucket + "/theirs/2c/" + hash,
                    "s3://" + bucket + "/mine/../theirs/2c/" + hash, "s3://" + bucket + "/mine/ab/" + hash,
                    "s3://" + bucket + "/mine/2c/secrets.txt", temp.resolve("2c").resolve(hash).toUri().toString()}) {
                assertThatThrownBy(() -> store.exists(uri)).as(uri).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> store.delete(uri)).as(uri).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> store.open(uri)).as(uri).isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void shouldRefuseToStartOnABucketThatDoesNotExistNamingTheSetting() {
        try (S3PayloadStore store = store("no-such-bucket-" + ProcessHandle.current().pid(), "")) {
            assertThatThrownBy(store::checkBucket).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not exist").hasMessageContaining(S3PayloadStore.BUCKET)
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void shouldNameTheEndpointSettingWhenS3IsUnreachable() {
        int closed = FreePort.find();
        S3ClientSettings nowhere = settings(Map.of("s3.endpoint-url", "http://127.0.0.1:" + closed, "s3.max-attempts", "1"));
        try (S3PayloadStore store = new S3PayloadStore(nowhere, "payloads", "")) {
            assertThatThrownBy(store::checkBucket).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("unreachable").hasMessageContaining(S3ClientSettings.ENDPOINT);
            assertThatThrownBy(() -> store.put(new byte[] {1})).isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("unreachable");
            assertThat(store.reachable()).isFalse();
        }
    }

    @Test
    void shouldBeClaimedByOneDatabaseAndRefuseAnotherNamingThePrefix() throws Exception {
        String bucket = S3.createBucket("claimed");
        try (S3PayloadStore first = store(bucket, "a"); S3PayloadStore again = store(bucket, "a");
             S3PayloadStore other = store(bucket, "b")) {
            first.claim("installation-1");
            again.claim("installation-1"); // the same database, another process: fine
            other.claim("installation-2"); // another prefix: its own claim
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> again.claim("installation-2"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("s3://" + bucket + "/a/ holds the payloads of another database")
                    .hasMessageContaining("installation-1").hasMessageContaining(S3PayloadStore.PREFIX);
        }
    }
}
