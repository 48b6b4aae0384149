package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.operator.DrainReport;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.S3Server;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Ensures the pipeline reads documents from S3: messages naming {@code s3://} objects of a versioned bucket on
 * the real S3-compatible server index the corpus's good PDFs (the object's version id as their source version),
 * quarantine an encrypted one with its bytes, refuse an object outside the source's s3-allow unread; then, in a
 * later operator process, a drain re-fetches from S3: the object replaced with a good version closes
 * repaired_content_changed, the deleted one deleted_at_source.
 */
class S3SourceIT {

    private static final Duration WAIT = Duration.ofSeconds(180);
    /** Good PDFs of the corpus (MANIFEST.tsv: expected_class indexed). */
    private static final String[] GOOD = {"c0004.pdf", "c0007.pdf", "c0018.pdf", "c0023.pdf"};
    /** Encrypted with a user password: permanent_input/encrypted. */
    private static final String LOCKED = "c0001.pdf";

    @TempDir
    Path data;

    @BeforeAll
    static void credentials() {
        // the SDK's default chain reads these system properties; S3Mock accepts any key
        S3Server.shared().properties().forEach((k, v) -> {
            if (k.startsWith("aws.")) {
                System.setProperty(k, v);
            }
        });
    }

    @Test
    void shouldIndexAndQuarantineFromS3AndDrainAgainstTheObjectsAsTheyAreNow() throws Exception {
        S3Server server = S3Server.shared();
        String bucket = server.createVersionedBucket("lake");
        Map<String, String> props = new HashMap<>(server.properties());
        props.put("sources.lake.s3-allow", bucket + "/docs/");
        Map<String, String> versions = new HashMap<>();
        try (S3Client s3 = server.client()) {
            for (String f : GOOD) {
                versions.put(f, s3.putObject(b -> b.bucket(bucket).key("docs/" + f), RequestBody.fromFile(Corpus.file(f)))
                        .versionId());
            }
            for (String f : new String[] {"locked-1.pdf", "locked-2.pdf"}) {
                s3.putObject(b -> b.bucket(bucket).key("docs/" + f), RequestBody.fromFile(Corpus.file(LOCKED)));
            }
            s3.putObject(b -> b.bucket(bucket).key("private/secret.pdf"), RequestBody.fromFile(Corpus.file(GOOD[0])));
        }

        String fingerprint;
        try (TestPipeline pipeline = TestPipeline.start(data, props)) {
            Map<String, String> keys = new LinkedHashMap<>();
            for (String docId : new String[] {GOOD[0], GOOD[1], GOOD[2], GOOD[3], "locked-1.pdf", "locked-2.pdf"}) {
                keys.put(docId, pipeline.publish(message(docId, "s3://" + bucket + "/docs/" + docId)));
            }
            String outside = pipeline.publish(message("secret.pdf", "s3://" + bucket + "/private/secret.pdf"));
            for (String f : GOOD) {
                assertThat(pipeline.awaitOutcome(keys.get(f), WAIT)).as(f).isEqualTo("indexed");
                assertThat(sourceVersion(pipeline.dataSource(), f)).as(f).isEqualTo(versions.get(f));
            }
            QuarantineRecord locked = null;
            for (String f : new String[] {"locked-1.pdf", "locked-2.pdf"}) {
                assertThat(pipeline.awaitOutcome(keys.get(f), WAIT)).as(f).isEqualTo("quarantined");
                locked = pipeline.assertQuarantinedOnce(keys.get(f), "lake", f, ErrorClass.PERMANENT_INPUT, "encrypted");
                TestPipeline.assertPayload(locked, Files.readAllBytes(Corpus.file(LOCKED)));
                assertThat(locked.connectorVersion()).isEqualTo("s3-1");
            }
            fingerprint = locked.errorFingerprint();
            assertThat(pipeline.awaitOutcome(outside, WAIT)).isEqualTo("quarantined");
            QuarantineRecord refused = pipeline.assertQuarantinedOnce(outside, "lake", "secret.pdf",
                    ErrorClass.PERMANENT_INPUT, "uri_not_allowed");
            assertThat(refused.payloadUri()).isNull();
        }

        try (S3Client s3 = server.client()) {
            s3.putObject(b -> b.bucket(bucket).key("docs/locked-1.pdf"), RequestBody.fromFile(Corpus.file("c0031.pdf")));
            s3.deleteObject(b -> b.bucket(bucket).key("docs/locked-2.pdf"));
        }
        // records do not keep the URI they were fetched from yet: the drain resolves doc_ids against base-uri
        Map<String, String> operator = new HashMap<>(server.properties());
        operator.put("sources.lake.s3-allow", bucket + "/docs/");
        operator.put("sources.lake.base-uri", "s3://" + bucket + "/docs/");
        try (OperatorRuntime runtime = OperatorRuntime.open("embedded", data, operator);
             DocumentParser parser = runtime.openParser()) {
            DrainReport report = runtime.drain(parser).run(new Drain.Request(fingerprint, null, null, 10, 20, "test"),
                    (done, of) -> { });
            assertThat(report.outcomes()).isEqualTo(Map.of("repaired_content_changed", 1L, "deleted_at_source", 1L));
            assertThat(runtime.store().find("lake", "locked-1.pdf").orElseThrow().disposition())
                    .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
            assertThat(runtime.store().find("lake", "locked-2.pdf").orElseThrow().disposition())
                    .isEqualTo(Disposition.DELETED_AT_SOURCE);
        }
    }

    private static IngestMessage message(String docId, String uri) {
        return new IngestMessage("lake", docId, URI.create(uri), null, null, null);
    }

    private static String sourceVersion(DataSource db, String docId) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT source_version FROM documents WHERE source = 'lake' AND doc_id = ?")) {
            s.setString(1, docId);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).as("document row of %s", docId).isTrue();
                return rs.getString(1);
            }
        }
    }
}
