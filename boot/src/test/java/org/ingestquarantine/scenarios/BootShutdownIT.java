package org.ingestquarantine.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.boot.BootRun;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.DocumentState;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures closing the Boot application mid-run (what SIGTERM does) loses nothing: the document in work is
 * finished and acknowledged once, no attempt is left open, what was not done is not acknowledged, and the next
 * run settles every message of the batch exactly once.
 */
class BootShutdownIT {

    /** Pages of the document in work when the application is closed: seconds of parsing, well within
     * {@code camel.main.shutdown-timeout}. */
    static final int SLOW_PAGES = 40;
    /**
     * Visibility timeout of these runs, seconds: a message the stopping consumer's long poll received after it
     * stopped taking work is not acknowledged, and comes back to the next run after this long.
     */
    static final int VISIBILITY_SECONDS = 15;

    @TempDir
    Path data;

    @Test
    void shouldFinishTheDocumentsInFlightAndLoseNothingWhenTheContextClosesMidRun() throws Exception {
        Path slow = LongPdf.write(Files.createDirectories(data.resolve("docs")).resolve("slow.pdf"), SLOW_PAGES);
        try (SqsFixture sqs = new SqsFixture()) {
            Map<String, String> p = new HashMap<>(sqs.start());
            p.putAll(TestPipeline.testProperties());
            p.put("iq.data-dir", data.resolve("app").toString());
            p.put("sqs.visibility-timeout-s", Integer.toString(VISIBILITY_SECONDS));
            BrokerScenarios.Batch batch;
            String slowKey;
            long settledByFirst;
            try (BootRun first = BootRun.start("embedded", p)) {
                TestPipeline pipeline = TestPipeline.attach(first.camel(), sqs);
                // published first: it holds the one parser worker (test properties) while the batch waits behind it
                slowKey = pipeline.publishFile("it", "slow.pdf", slow);
                batch = BrokerScenarios.Batch.publish(pipeline, "kill");
                Awaitility.await("the slow document in work").atMost(BrokerScenarios.WAIT)
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE source = ?"
                                + " AND doc_id = 'slow.pdf' AND closed_at IS NULL AND stage IN ('parse', 'chunk', 'embed')",
                                "it") == 1);
                first.close();
                settledByFirst = java.util.stream.Stream.concat(batch.good().keySet().stream(), batch.bad().keySet().stream())
                        .filter(key -> pipeline.outcomeOf(key) != null).count();
                assertThat(pipeline.outcomeOf(slowKey)).as("the document in work when the context closed").isEqualTo("indexed");
            }
            assertThat(settledByFirst).as("the close must come mid-run").isLessThan(batch.sent());

            try (BootRun second = BootRun.start("embedded", p)) {
                TestPipeline pipeline = TestPipeline.attach(second.camel(), sqs);
                assertThat(BrokerScenarios.openAttempts(pipeline, "it")).as("attempts the close cut short").isZero();
                assertThat(BrokerScenarios.openAttempts(pipeline, "kill")).as("attempts the close cut short").isZero();
                Awaitility.await("every message settled by the next run").atMost(BrokerScenarios.WAIT.multipliedBy(2))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> batch.settled(pipeline) >= batch.sent());
                batch.assertEachRecordedOnce(pipeline);
                assertThat(pipeline.bean("documentIndex", DocumentIndex.class).state("it", "slow.pdf"))
                        .contains(DocumentState.SEARCHABLE);
                assertThat(pipeline.deliveries(slowKey)).as("deliveries of the document finished on close").isEqualTo(1);
                assertThat(BrokerScenarios.openAttempts(pipeline, "kill")).as("attempts left open").isZero();
            }
        }
    }
}
