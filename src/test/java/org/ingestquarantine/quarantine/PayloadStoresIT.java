package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.testsupport.S3Server;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code payload.store} picks where new objects go; a record's object is reached where its URI says, and one in a
 * store this process is not configured for is refused in one line naming the store and the setting. Against the
 * real S3-compatible server on loopback ({@link S3Server}).
 */
class PayloadStoresIT {

    private static final S3Server S3 = S3Server.shared();
    private static final String HELLO = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    @TempDir
    Path temp;

    @BeforeAll
    static void credentials() {
        S3.exportCredentials();
    }

    private PayloadStores stores(Path dataDir, Map<String, String> overrides) {
        Map<String, String> all = new HashMap<>(S3.properties());
        all.putAll(overrides);
        return PayloadStores.fromSettings(ProfileProperties.load("embedded", all), dataDir);
    }

    @Test
    void shouldWriteLocallyByDefaultAndNameTheSettingsForAnS3Object() throws Exception {
        try (PayloadStores local = stores(temp.resolve("a"), Map.of())) {
            StoredObject o = local.put("hello".getBytes(StandardCharsets.UTF_8));

            assertThat(local.kind()).isEqualTo("local");
            assertThat(o.uri()).isEqualTo(temp.resolve("a").resolve("objects").resolve("2c").resolve(HELLO).toUri()
                    .toString());
            assertThat(local.exists(o.uri())).isTrue();
            String inS3 = "s3://iq-payloads/q/2c/" + HELLO;
            assertThatThrownBy(() -> local.exists(inS3)).isInstanceOf(PayloadNotHereException.class)
                    .hasMessage("payload " + inS3 + " is in S3 bucket iq-payloads; this process has payload.store=local:"
                            + " set payload.store=s3 and payload.s3.bucket=iq-payloads");
        }
    }

    @Test
    void shouldNameTheLocalFolderOfAnObjectOutsideItsOwn() throws Exception {
        try (PayloadStores writer = stores(temp.resolve("b"), Map.of());
             PayloadStores reader = stores(temp.resolve("op"), Map.of());
             PayloadStores shared = stores(temp.resolve("op"),
                     Map.of(PayloadStores.LOCAL_DIR, temp.resolve("b").resolve("objects").toString()))) {
            StoredObject o = writer.put("hello".getBytes(StandardCharsets.UTF_8));

            assertThatThrownBy(() -> reader.open(o.uri())).isInstanceOf(PayloadNotHereException.class)
                    .hasMessageContaining("is in the local folder " + temp.resolve("b").resolve("objects"))
                    .hasMessageContaining("set payload.local.dir=" + temp.resolve("b").resolve("objects"));
            // the folder shared (payload.local.dir): the object is found
            assertThat(shared.get(o.uri())).asString(StandardCharsets.UTF_8).isEqualTo("hello");
        }
    }

    @Test
    void shouldWriteToS3AndStillReadOlderLocalObjects() throws Exception {
        String bucket = S3.createBucket("routed");
        Path dataDir = temp.resolve("c");
        StoredObject older;
        try (PayloadStores local = stores(dataDir, Map.of())) {
            older = local.put("older".getBytes(StandardCharsets.UTF_8));
        }
        try (PayloadStores s3 = stores(dataDir, Map.of(PayloadStores.STORE, "s3", S3PayloadStore.BUCKET, bucket,
                S3PayloadStore.PREFIX, "ev"))) {
            s3.checkAtStart();
            StoredObject o = s3.put("hello".getBytes(StandardCharsets.UTF_8));

            assertThat(o.uri()).isEqualTo("s3://" + bucket + "/ev/2c/" + HELLO);
            assertThat(s3.get(o.uri())).asString(StandardCharsets.UTF_8).isEqualTo("hello");
            assertThat(s3.get(older.uri())).asString(StandardCharsets.UTF_8).isEqualTo("older");
            assertThat(s3.reachable()).isTrue();
            assertThatThrownBy(() -> s3.exists("s3://elsewhere/ev/2c/" + HELLO))
                    .isInstanceOf(PayloadNotHereException.class)
                    .hasMessageContaining("this process has payload.s3.bucket=" + bucket)
                    .hasMessageEndingWith("set payload.s3.bucket=elsewhere");
            assertThatThrownBy(() -> s3.exists("s3://" + bucket + "/other/2c/" + HELLO))
                    .isInstanceOf(PayloadNotHereException.class)
                    .hasMessageEndingWith("set payload.s3.prefix=other/");
            assertThat(s3.delete(o.uri())).isTrue();
            assertThat(s3.exists(o.uri())).isFalse();
        }
    }

    @Test
    void shouldRefuseSettingsItCannotUse() {
        assertThatThrownBy(() -> stores(temp, Map.of(PayloadStores.STORE, "ftp")))
                .isInstanceOf(IllegalStateException.class).hasMessage("payload.store must be local or s3, was 'ftp'");
        assertThatThrownBy(() -> stores(temp, Map.of(PayloadStores.STORE, "s3")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("payload.s3.bucket");
        try (PayloadStores missing = stores(temp, Map.of(PayloadStores.STORE, "s3", S3PayloadStore.BUCKET,
                "never-created"))) {
            assertThatThrownBy(missing::checkAtStart).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bucket 'never-created' does not exist")
                    .hasMessageContaining("set payload.s3.bucket");
        }
    }
}
