package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/** The server start-local runs answers what the product relies on: PUT, HEAD with an MD5 ETag, versions, List, DELETE. */
class S3ServerIT {

    @Test
    void answersPutHeadGetListDeleteWithRealEtagsAndVersions() {
        S3Server server = S3Server.shared();
        String bucket = server.createVersionedBucket("probe");
        try (S3Client s3 = server.client()) {
            s3.putObject(b -> b.bucket(bucket).key("docs/a.pdf"), RequestBody.fromString("hello", StandardCharsets.UTF_8));
            HeadObjectResponse first = s3.headObject(b -> b.bucket(bucket).key("docs/a.pdf"));
            assertThat(first.eTag()).isEqualTo("\"5d41402abc4b2a76b9719d911017c592\""); // MD5 of "hello"
            assertThat(first.contentLength()).isEqualTo(5);
            s3.putObject(b -> b.bucket(bucket).key("docs/a.pdf"), RequestBody.fromString("hello!", StandardCharsets.UTF_8));
            HeadObjectResponse second = s3.headObject(b -> b.bucket(bucket).key("docs/a.pdf"));
            assertThat(second.versionId()).isNotBlank().isNotEqualTo(first.versionId());
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("docs/a.pdf")).asUtf8String()).isEqualTo("hello!");
            assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("docs/")).keyCount()).isEqualTo(1);
            s3.deleteObject(b -> b.bucket(bucket).key("docs/a.pdf"));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("docs/a.pdf")))
                    .isInstanceOf(NoSuchKeyException.class);
        }
    }
}
