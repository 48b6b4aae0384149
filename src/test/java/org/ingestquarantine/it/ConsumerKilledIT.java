package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.broker.sqs.EmbeddedSqsServer;
import org.ingestquarantine.broker.sqs.SqsQueues;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.SqsReceiveCounter;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Ensures a consumer killed with SIGKILL mid-document loses nothing: the message is redelivered, and
 * once its attempts have died as often as resource_fatal allows (retries + 1 = 2), the next delivery
 * quarantines it as resource_fatal without working on it again; a SIGTERM stops the consumer cleanly.
 * The queue and the database live in the test JVM, the consumer in its own (`ingest-quarantine run`).
 */
class ConsumerKilledIT {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path tmp;

    @Test
    void shouldQuarantineADocumentWhoseConsumerDiesTwiceAndLoseNothing() throws Exception {
        Path log = ConsumerProcess.freshLog("consumer-killed-it.log");
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password());
             EmbeddedSqsServer sqsServer = EmbeddedSqsServer.start(FreePort.find());
             SqsReceiveCounter counter = new SqsReceiveCounter(sqsServer.endpoint());
             SqsClient sqs = SqsClient.builder().region(Region.US_EAST_1).endpointOverride(sqsServer.endpoint())
                     .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build()) {
            String queueUrl = SqsQueues.create(sqs, Path.of("broker-configs", "sqs"), "ingest");
            Map<String, String> props = new HashMap<>();
            props.put("sqs.endpoint-url", counter.endpoint().toString());
            props.put("sqs.visibility-timeout-s", "3");
            props.put("db.mode", "external");
            props.put("db.url", pg.jdbcUrl());
            props.put("db.user", pg.user());
            props.put("db.password", pg.password());
            props.put("parse.pool-size", "1");
            // the documents' folder is the source's one root (DESIGN.md §9)
            props.put("sources.kill.file-roots", TestPipeline.testRoots());
            props.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
            props.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
            Map<String, String> env = Map.of("AWS_ACCESS_KEY_ID", "x", "AWS_SECRET_ACCESS_KEY", "x", "AWS_REGION", "us-east-1");
            Path data = Files.createDirectories(tmp.resolve("data"));

            Path longPdf = LongPdf.write(tmp.resolve("long.pdf"), 600);
            String longId = send(sqs, queueUrl, "kill", "long.pdf", longPdf);
            String key = "sqs:" + longId;

            // two consumers die while working on it
            for (int death = 1; death <= 2; death++) {
                try (ConsumerProcess consumer = ConsumerProcess.start("sqs", data, props, env, log)) {
                    int expected = death;
                    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                            .until(() -> openWorkingAttempts(db, key) >= expected);
                    consumer.kill9();
                    // its parser workers go when their parent has gone
                    Awaitility.await().atMost(WAIT).until(() -> consumer.workersAtStop().stream().noneMatch(ProcessHandle::isAlive));
                }
            }

            QuarantineStore store = new QuarantineStore(db.dataSource(), new LocalPayloadStore(tmp.resolve("objects")),
                    java.time.Clock.systemUTC());
            try (ConsumerProcess consumer = ConsumerProcess.start("sqs", data, props, env, log)) {
                Awaitility.await().atMost(WAIT).until(() -> store.find("kill", "long.pdf").isPresent());
                QuarantineRecord r = store.find("kill", "long.pdf").orElseThrow();
                assertThat(r.errorClass()).isEqualTo(ErrorClass.RESOURCE_FATAL);
                assertThat(r.reasonCode()).isEqualTo("consumer_died");
                assertThat(r.stage()).isIn("parse", "chunk", "embed");
                assertThat(r.quarantineWrites()).isEqualTo(1);
                // no third attempt was started: the guard refused before any work
                assertThat(attempts(db, key)).isEqualTo(2);
                // delivered at least three times, counted outside the pipeline: two deaths, one quarantine. A
                // killed consumer's long poll stays open at the server and may receive the message once more
                // with nobody to process it; the broker counts that receive too (it is why the guard counts
                // deaths in the journal, not deliveries)
                Awaitility.await().atMost(WAIT).until(() -> pending(sqs, queueUrl) == 0);
                assertThat(counter.receives(longId)).isGreaterThanOrEqualTo(3);

                // the consumer that quarantined it still indexes good documents, then stops cleanly on SIGTERM
                send(sqs, queueUrl, "kill", "good-1.pdf", Corpus.file("c0007.pdf"));
                send(sqs, queueUrl, "kill", "good-2.pdf", Corpus.file("c0048.pdf"));
                Awaitility.await().atMost(WAIT).until(() -> searchable(db, "kill") == 2);
                assertThat(consumer.terminate()).as("exit code after SIGTERM").isZero();
            }
            // nothing lost: 3 sent = 2 indexed + 1 quarantined, and nothing left on the queue or its DLQ
            assertThat(searchable(db, "kill") + quarantined(db, "kill")).isEqualTo(3);
            assertThat(pending(sqs, queueUrl)).isZero();
        }
    }

    private static String send(SqsClient sqs, String queueUrl, String source, String docId, Path file) {
        String body = new IngestMessage(source, docId, file.toAbsolutePath().toUri(), null, null, null).toJson();
        return sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body)).messageId();
    }

    private static long pending(SqsClient sqs, String queueUrl) {
        return sqs.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNamesWithStrings(
                "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible")).attributesAsStrings()
                .values().stream().mapToLong(Long::parseLong).sum();
    }

    private static long openWorkingAttempts(Database db, String key) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ? AND closed_at IS NULL"
                + " AND stage IN ('parse', 'chunk', 'embed')", key);
    }

    private static long attempts(Database db, String key) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?", key);
    }

    private static long searchable(Database db, String source) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM documents WHERE source = ? AND state = 'searchable'", source);
    }

    private static long quarantined(Database db, String source) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM quarantine WHERE source = ?", source);
    }


}
