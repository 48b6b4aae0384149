package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.builder.AdviceWith;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.OutageProxy;
import org.ingestquarantine.testsupport.S3Server;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3 going away under a quarantine write is the payload store being down, as the database's outage is: the message
 * is not acknowledged, nothing is quarantined for the outage, the consumer holds while S3 does not answer (its
 * breaker probes the payload store too), and once S3 is back the document is quarantined once, its payload in the
 * bucket. S3 is the real S3-compatible server on loopback, reached through a TCP forwarder the test takes down.
 */
class PayloadStoreOutageIT {

    private static final Duration WAIT = Duration.ofSeconds(240);
    /** Far beyond {@link #WAIT}: a message that only came back when its visibility ran out times the test out. */
    private static final int VISIBILITY_SECONDS = 900;
    private static final Duration PAUSE_WITHIN = Duration.ofSeconds(30);

    @TempDir
    Path data;

    @Test
    void shouldHoldTheConsumerAndAcknowledgeNothingWhileS3IsDown() throws Exception {
        S3Server s3 = S3Server.shared();
        String bucket = s3.createBucket("outage");
        try (OutageProxy proxy = OutageProxy.to(s3.port())) {
            Map<String, String> props = new HashMap<>(s3.properties());
            props.putAll(Map.of("s3.endpoint-url", "http://127.0.0.1:" + proxy.port(), "payload.store", "s3",
                    "payload.s3.bucket", bucket, "sqs.visibility-timeout-s", Integer.toString(VISIBILITY_SECONDS)));
            s3.exportCredentials();
            try (TestPipeline pipeline = TestPipeline.start(data, props)) {
                ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker",
                        ConsumerCircuitBreaker.class);
                AtomicInteger quarantineRuns = new AtomicInteger();
                // the first time the quarantine route runs, S3 goes away under it
                AdviceWith.adviceWith(pipeline.app().context(), "quarantine", a -> a.weaveAddFirst().process(e -> {
                    if (quarantineRuns.incrementAndGet() == 1) {
                        proxy.down();
                    }
                }));
                Path file = Corpus.file("c0066.pdf");

                String key = pipeline.publishFile("it", "html.pdf", file);

                await().atMost(WAIT).until(() -> quarantineRuns.get() >= 1);
                await("consumer held").atMost(PAUSE_WITHIN).until(breaker::isOpen);
                assertThat(pipeline.outcomeOf(key)).as("outcome without a stored payload").isNull();
                assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).isZero();
                assertThat(pipeline.depth("ingest")).as("the unacknowledged message is still on the queue").isEqualTo(1);
                // held, not burning deliveries, while S3 stays down (the database answers all along)
                await("held while S3 is down").during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20))
                        .until(() -> breaker.isOpen() && pipeline.deliveries(key) <= 2);

                proxy.up();

                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                QuarantineRecord record = pipeline.store().find("it", "html.pdf").orElseThrow();
                assertThat(record.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
                assertThat(record.quarantineWrites()).isEqualTo(1);
                assertThat(record.payloadUri()).startsWith("s3://" + bucket + "/");
                assertThat(pipeline.store().attempts(record.dlqId())).hasSize(1);
                try (S3Client raw = s3.client()) {
                    String objectKey = record.payloadUri().substring(("s3://" + bucket + "/").length());
                    assertThat(raw.getObjectAsBytes(b -> b.bucket(bucket).key(objectKey)).asByteArray())
                            .as("the payload in the bucket").isEqualTo(Files.readAllBytes(file));
                }
                assertThat(SqlCount.of(pipeline.dataSource(),
                        "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL")).as("deaths").isZero();
                assertThat(pipeline.settlements()).as("settled exactly once").isEqualTo(1);
                await("acknowledged once recorded").atMost(WAIT).until(() -> pipeline.depth("ingest") == 0);
                assertThat(pipeline.depth("ingest-dlq")).isZero();
            }
        }
    }

    /** A bucket that does not exist is refused at start-up, in one line naming the setting; nothing is consumed. */
    @Test
    void shouldRefuseToStartOnABucketThatDoesNotExist(@TempDir Path folder) throws Exception {
        S3Server s3 = S3Server.shared();
        Files.copy(Path.of("samples", "pdfs", "09-not-pdf-html.pdf"), folder.resolve("bad.pdf"));
        Map<String, String> props = new HashMap<>(s3.properties());
        props.putAll(Map.of("payload.store", "s3", "payload.s3.bucket", "no-such-bucket"));
        props.forEach(System::setProperty);
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        try {
            int code = org.ingestquarantine.cli.IngestQuarantineCli.commandLine().setOut(new java.io.PrintWriter(out))
                    .setErr(new java.io.PrintWriter(err)).execute("ingest", folder.toString(), "--data-dir",
                            data.toString());
            assertThat(code).as(err.toString()).isNotZero();
        } finally {
            props.keySet().forEach(System::clearProperty);
        }
        assertThat(err.toString().strip()).isEqualTo("ingest: payload store: bucket 'no-such-bucket' does not exist at "
                + s3.endpoint() + "; create it or set payload.s3.bucket");
        assertThat(out.toString()).isEmpty();
    }
}
