package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.scenarios.KafkaFixture;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a record quarantined while Kafka is down gets exactly one dead-letter copy (issue 21 item 6): its offset
 * commit fails, so Kafka hands it over again once it is back, and that delivery, finding the record's outcome
 * already committed, is acknowledged with no second attempt and no second copy. Counted outside the pipeline, by a
 * consumer of {@code ingest.dlq}. The outage lasts {@value #OUTAGE_S} s: longer than an offset commit waits
 * (camel-kafka's {@code commitTimeoutMs}, 5 s), so the commits of the records quarantined meanwhile do fail, as
 * they would in a 60 s one.
 */
class KafkaOutageQuarantineIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final int OUTAGE_S = 15;
    private static final int RECORDS = 3;

    @TempDir
    Path data;

    @Test
    void shouldCopyARecordQuarantinedWhileKafkaIsDownOnceToTheDeadLetterTopic() throws Exception {
        CountDownLatch answer = new CountDownLatch(1);
        AtomicInteger gets = new AtomicInteger();
        HttpServer html = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        html.createContext("/", ex -> {
            byte[] page = "<html>not a pdf</html>".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/pdf");
            if (!"GET".equals(ex.getRequestMethod())) {
                ex.sendResponseHeaders(200, -1);
                ex.close();
                return;
            }
            gets.incrementAndGet();
            try {
                // held until Kafka is down, then not a PDF: permanent_input, quarantined on its first delivery
                answer.await(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, page.length);
            ex.getResponseBody().write(page);
            ex.close();
        });
        html.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        html.start();
        String origin = "http://127.0.0.1:" + html.getAddress().getPort();
        KafkaFixture fixture = new KafkaFixture();
        try (TestPipeline pipeline = TestPipeline.start(data, fixture, Map.of("sources.it.http-allow", origin,
                "sources.it.http-allow-private", "true"))) {
            Map<String, String> keys = new LinkedHashMap<>();
            for (int i = 0; i < RECORDS; i++) {
                keys.put(pipeline.publish(new IngestMessage("it", "page-" + i + ".pdf",
                        URI.create(origin + "/page-" + i + ".pdf"), null, null, null)), "page-" + i + ".pdf");
            }
            Awaitility.await("a record in work").atMost(WAIT).until(() -> gets.get() >= 1);
            fixture.broker().kill();
            answer.countDown();
            Awaitility.await("quarantined while Kafka is down").atMost(WAIT)
                    .until(() -> SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine WHERE source = 'it'") >= 1);
            Thread.sleep(Duration.ofSeconds(OUTAGE_S).toMillis());
            fixture.broker().restart();

            for (String key : keys.keySet()) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(keys.get(key)).isEqualTo("quarantined");
            }
            // every record's copy, counted by a consumer of the dead-letter topic
            List<Map<String, String>> copies = fixture.deadLetters(RECORDS + 1);
            Map<String, Long> perRecord = copies.stream().collect(Collectors.groupingBy(
                    c -> c.getOrDefault(KafkaDeadLetters.DLQ_ID, "?"), Collectors.counting()));
            for (String docId : keys.values()) {
                QuarantineRecord r = pipeline.store().find("it", docId).orElseThrow();
                assertThat(r.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
                assertThat(perRecord.get(r.dlqId())).as("copies of %s in %s", docId, KafkaFixture.DLQ_TOPIC).isEqualTo(1);
                assertThat(pipeline.store().attempts(r.dlqId())).as("attempts on the record of %s", docId)
                        .extracting(QuarantineAttempt::deliveryCount).containsExactly(1);
            }
            assertThat(copies).as("copies in %s", KafkaFixture.DLQ_TOPIC).hasSize(RECORDS);
            Map<String, Long> attempts = keys.keySet().stream().collect(Collectors.toMap(Function.identity(), k -> {
                try {
                    return SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ?", k);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
            assertThat(attempts.values()).as("attempts per record").containsOnly(1L);
            assertThat(gets.get()).as("GETs at the source: one per record").isEqualTo(RECORDS);
        } finally {
            html.stop(0);
        }
    }
}
