package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.scenarios.RabbitMqFixture;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a message whose doc_id is huge or holds control characters reaches exactly one outcome (one
 * delivery, one invalid_message record, kept under its source when that source is valid and configured, else
 * under {@value RecordKey#INVALID_MESSAGES_SOURCE}) and leaves only escaped, bounded log lines. SQS itself refuses a
 * body over 256 KiB at publish (MessageTooLong) and Kafka's default max.message.bytes is about 1 MB, so a
 * 5 MB doc_id can only become a delivery on RabbitMQ, where it is tested; on the embedded profile the
 * largest doc_id SQS carries (250 KB) stands in for it.
 */
class IdentityIT {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path data;

    @Test
    void shouldQuarantineHugeAndControlCharacterDocIdsOnceWithBoundedEscapedLogs() throws Exception {
        String fiveMb = "a".repeat(5 * 1024 * 1024);
        String huge = "a".repeat(250 * 1024);
        String forged = "x.pdf\n12:00:00.000 INFO  Outcomes - forged/line indexed\u001b[31m red \u001b[0m\r";
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            assertThatThrownBy(() -> publisher.publishRaw(body(fiveMb))).as("SQS's own size limit")
                    .hasMessageContaining("MessageTooLong");
            Captured hugeLog = Captured.stderrWhile(() -> {
                String key = publisher.publishRaw(body(huge));
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                return key;
            });
            Captured forgedLog = Captured.stderrWhile(() -> {
                String key = publisher.publishRaw(body(json(forged)));
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                return key;
            });

            for (Map.Entry<Captured, String> c : Map.of(hugeLog, huge, forgedLog, forged).entrySet()) {
                QuarantineRecord r = pipeline.assertQuarantinedOnce(c.getKey().key(), "it",
                        invalidDocId(c.getValue()), ErrorClass.PERMANENT_INPUT, "invalid_message");
                assertThat(r.errorMessage().length()).isLessThan(1000);
            }
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).isEqualTo(2);
            assertThat(hugeLog.text().length()).as("stderr while the 250 KB doc_id was handled").isLessThan(10 * 1024)
                    .isGreaterThan(0);
            assertThat(hugeLog.text()).doesNotContain("a".repeat(1000));
            assertThat(forgedLog.text()).isNotEmpty().doesNotContain("\u001b").doesNotContain("\r")
                    .doesNotContain("forged/line");
            // the record keeps the identity escaped and bounded (LogSafe), so a reader of it sees no forged line
            QuarantineRecord forgedRecord = pipeline.store().find("it", invalidDocId(forged)).orElseThrow();
            assertThat(forgedRecord.errorMessage()).contains("\\n12:00:00.000").contains("\\u001B[31m")
                    .doesNotContain("\u001b").doesNotContain("\n");
            assertThat(forgedLog.text().lines()).noneMatch(l -> l.startsWith("12:00:00.000 INFO  Outcomes - forged"));
        }
    }

    @Test
    void shouldQuarantineAFiveMegabyteDocIdOnRabbitMqOnceWithUnderTenKilobytesOfStderr() throws Exception {
        String fiveMb = "a".repeat(5 * 1024 * 1024);
        try (TestPipeline pipeline = TestPipeline.start(data, new RabbitMqFixture(), Map.of())) {
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            Captured log = Captured.stderrWhile(() -> {
                String key = publisher.publishRaw(body(fiveMb));
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                return key;
            });
            // one delivery (counted by the broker's tracer), one row, attempts 1
            QuarantineRecord r = pipeline.assertQuarantinedOnce(log.key(), "it",
                    invalidDocId(fiveMb), ErrorClass.PERMANENT_INPUT, "invalid_message");
            assertThat(r.errorMessage()).as("the record's message, identity truncated").hasSizeLessThan(1000)
                    .doesNotContain("a".repeat(1000));
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine")).isEqualTo(1);
            assertThat(log.text().length()).as("stderr while the 5 MB doc_id was handled").isLessThan(10 * 1024)
                    .isGreaterThan(0);
            assertThat(log.text()).doesNotContain("a".repeat(1000));
        }
    }

    /**
     * Issue 8: an invalid doc_id is kept under its source (so the source's coverage counts it) only when that source
     * is valid and configured; an unknown or invalid source never gets rows under a producer's name.
     */
    @Test
    void shouldKeepAnInvalidDocIdUnderItsSourceOnlyWhenTheSourceIsValidAndConfigured() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            String configured = publisher.publishRaw(body("it", json("bad\nname.pdf")));
            String reservedPrefix = publisher.publishRaw(body("it", RecordKey.INVALID_DOC_ID_PREFIX + "forged.pdf"));
            String unknown = publisher.publishRaw(body("not-configured", json("bad\nname.pdf")));
            String invalidSource = publisher.publishRaw(body(json("it\u0007"), json("bad\nname.pdf")));
            for (String key : new String[] {configured, reservedPrefix, unknown, invalidSource}) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(key).isEqualTo("quarantined");
            }

            for (Map.Entry<String, String> e : Map.of(configured, "bad\nname.pdf",
                    reservedPrefix, RecordKey.INVALID_DOC_ID_PREFIX + "forged.pdf").entrySet()) {
                QuarantineRecord r = pipeline.assertQuarantinedOnce(e.getKey(), "it", invalidDocId(e.getValue()),
                        ErrorClass.PERMANENT_INPUT, "invalid_message");
                assertThat(r.disposition()).isEqualTo(org.ingestquarantine.quarantine.Disposition.OPEN);
            }
            assertThat(pipeline.store().find("it", RecordKey.INVALID_DOC_ID_PREFIX + "forged.pdf"))
                    .as("a producer cannot spell the reserved doc_id").isEmpty();
            for (String key : new String[] {unknown, invalidSource}) {
                pipeline.assertQuarantinedOnce(key, RecordKey.INVALID_MESSAGES_SOURCE, key, ErrorClass.PERMANENT_INPUT,
                        "invalid_message");
            }
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine WHERE source NOT IN ('it', '_invalid_messages')")).as("rows under a producer's source name").isZero();
            // coverage counts the two under their configured source
            assertThat(pipeline.app().bean("quarantineQueries", org.ingestquarantine.quarantine.QuarantineQueries.class)
                    .coverage(java.util.List.of("it")).stream().filter(c -> c.source().equals("it")).findFirst()
                    .orElseThrow().openQuarantined()).isEqualTo(2);
        }
    }

    /** @return the reserved doc_id a record of a message of source "it" with this invalid doc_id has */
    private static String invalidDocId(String docId) {
        return RecordKey.invalidDocId("it", RecordKey.docIdDigest(docId)).docId();
    }

    private static String body(String docIdJson) {
        return body("it", docIdJson);
    }

    private static String body(String sourceJson, String docIdJson) {
        return "{\"source\":\"" + sourceJson + "\",\"doc_id\":\"" + docIdJson + "\",\"uri\":\"file:///nowhere/x.pdf\"}";
    }

    /** @return {@code s} with JSON's escapes for control characters */
    private static String json(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(c < 0x20 ? String.format("\\u%04x", c) : String.valueOf((char) c)));
        return b.toString();
    }

    /** What was written to stderr while an action ran, and the delivery key it returned. */
    private record Captured(String key, String text) {

        interface Action {
            String run() throws Exception;
        }

        static Captured stderrWhile(Action action) throws Exception {
            PrintStream original = System.err;
            ByteArrayOutputStream copy = new ByteArrayOutputStream();
            System.setErr(new PrintStream(new OutputStream() {
                @Override
                public void write(int b) {
                    copy.write(b);
                    original.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    copy.write(b, off, len);
                    original.write(b, off, len);
                }
            }, true, StandardCharsets.UTF_8));
            try {
                String key = action.run();
                // the outcome's own log line follows the metric by a moment
                Awaitility.await().pollDelay(Duration.ofMillis(500)).until(() -> true);
                return new Captured(key, copy.toString(StandardCharsets.UTF_8));
            } finally {
                System.setErr(original);
            }
        }
    }
}
