package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.Properties;
import org.ingestquarantine.testsupport.S3Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Ensures an S3 source is counted by listing its s3-allow entries page by page on the real S3-compatible server:
 * documents only (no folder markers, no keys the connector refuses), an entry inside another counted once, and
 * every page request taking a token of the throttle.
 */
class S3ListerIT {

    private static S3Client s3;
    private static String bucket;
    private static String other;

    @BeforeAll
    static void upload() {
        s3 = S3Server.shared().client();
        bucket = S3Server.shared().createBucket("listed");
        other = S3Server.shared().createBucket("listed-other");
        for (String key : new String[] {"docs/a.pdf", "docs/b.pdf", "docs/sub/c.pdf", "docs/sub/d.pdf", "docs/e.pdf",
                "docs/folder/", "docs/../f.pdf", "docs-old/g.pdf", "private/h.pdf"}) {
            s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("x"));
        }
        s3.putObject(b -> b.bucket(other).key("i.pdf"), RequestBody.fromString("x"));
    }

    @AfterAll
    static void close() {
        s3.close();
    }

    private static S3Lister lister(String allow, SourceRequestThrottle throttle, long max) {
        Properties p = new Properties();
        p.setProperty("sources.docs.s3-allow", allow);
        p.setProperty("sources.folder.file-roots", System.getProperty("java.io.tmpdir"));
        return new S3Lister(SourceAccess.fromProperties(p), s3, throttle, max);
    }

    @Test
    void shouldCountTheDocumentsUnderTheEntriesEachOnce() throws IOException {
        S3Lister l = lister(bucket + "/docs/, " + bucket + "/docs/sub/, " + other, SourceRequestThrottle.unlimited(), 100);
        assertThat(l.canList("docs")).isTrue();
        assertThat(l.canList("folder")).isFalse();
        // a, b, c, d, e under docs/ (sub/ inside it, counted once), i in the other bucket; not the folder marker,
        // not the key with a '..' segment, not docs-old/
        assertThat(l.count("docs")).isEqualTo(6);
    }

    @Test
    void shouldTakeATokenForEveryPage() throws IOException {
        // a token every 500 ms, the first at hand; 5 documents and the marker and the '..' key, 2 keys a page: 4
        // pages, 3 waits; were only the first page counted, no wait
        S3Lister l = lister(bucket + "/docs/", SourceRequestThrottle.local(2, 0), 100).pageKeys(2);
        long began = System.nanoTime();
        assertThat(l.count("docs")).isEqualTo(5);
        assertThat(Duration.ofNanos(System.nanoTime() - began)).isGreaterThanOrEqualTo(Duration.ofMillis(1450));
    }

    @Test
    void shouldFailPastItsBoundInsteadOfCountingOn() {
        assertThatThrownBy(() -> lister(bucket, SourceRequestThrottle.unlimited(), 3).count("docs"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("more than 3 objects");
    }

    @Test
    void shouldSayWhichEntryCouldNotBeListed() {
        assertThatThrownBy(() -> lister("no-such-bucket-" + ProcessHandle.current().pid() + "/x/",
                SourceRequestThrottle.unlimited(), 100).count("docs"))
                .isInstanceOf(IOException.class).hasMessageContaining("/x/ failed (HTTP 404 NoSuchBucket)");
    }
}
