package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.quarantine.Disposition;
import org.ingestquarantine.testsupport.CountingDriver;
import org.ingestquarantine.testsupport.TestPipeline;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counts what the database costs per message on the real pipeline (embedded SQS, embedded PostgreSQL of its
 * own), client-side: every connection of the application's pool is wrapped by {@link CountingDriver}, which
 * counts round trips (statement executions, commits, rollbacks, validations on borrow) and commits
 * (auto-commit statements and explicit commits) per thread. The heartbeat's one statement per beat for all
 * live attempts of the process is time-bound, not message-bound, and is reported apart (it carries the stage
 * marks). Issue 12 item 3: an indexed message costs at most 2 commits (the attempt's open; the index write
 * with the attempt's close) and at most 4 round trips; a quarantined one no more than that either, nor an indexed
 * one whose open quarantine record the index write closes (the admission saw it: write, close, commit).
 */
class CommitsPerMessageIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String HEARTBEAT = "attempt-heartbeat";
    /** The failure-storm breaker's reading of the paused sources, every storm.pause-cache-ms: not per message. */
    private static final String STORM_PAUSES = "storm-pauses";
    private static final int GOOD = 6;
    private static final int BAD = 3;

    @TempDir
    Path tmp;

    @Test
    void shouldCostAtMostTwoCommitsAndFourRoundTripsPerIndexedMessage() throws Exception {
        CountingDriver.install();
        try (EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             TestPipeline pipeline = TestPipeline.start(Files.createDirectories(tmp.resolve("data")), Map.of(
                     "db.mode", "external", "db.url", CountingDriver.PREFIX + pg.jdbcUrl().substring("jdbc:".length()),
                     "db.user", pg.user(), "db.password", pg.password(),
                     // the gauges' reading of the store is time-bound too: not during the count
                     "metrics.store-poll-ms", "3600000"))) {
            Path folder = Files.createDirectories(tmp.resolve("docs"));
            // warm-up: the first document pays for the pool's first connections and the parser's start
            String warm = pipeline.publishFile("it", "warm.pdf", write(folder, "warm.pdf", TextPdf.of("warm up page")));
            assertThat(pipeline.awaitOutcome(warm, WAIT)).isEqualTo("indexed");

            CountingDriver.reset();
            List<String> good = new ArrayList<>();
            for (int i = 0; i < GOOD; i++) {
                good.add(pipeline.publishFile("it", "good-" + i + ".pdf", write(folder, "good-" + i + ".pdf",
                        TextPdf.of("page one of document " + i + " about commits", "page two of document " + i))));
            }
            for (String key : good) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");
                assertThat(pipeline.deliveries(key)).isEqualTo(1);
            }
            long[] indexed = CountingDriver.totalExcept(Set.of(HEARTBEAT, STORM_PAUSES));
            String indexedDetail = CountingDriver.byThread().toString();

            CountingDriver.reset();
            List<String> bad = new ArrayList<>();
            for (int i = 0; i < BAD; i++) {
                String docId = "bad-" + i + ".pdf";
                bad.add(pipeline.publishFile("it", docId, Files.write(folder.resolve(docId),
                        ("<html>not a pdf " + i + "</html>").getBytes(StandardCharsets.US_ASCII))));
            }
            for (String key : bad) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                assertThat(pipeline.deliveries(key)).as("permanent_input: retries 0 + 1").isEqualTo(1);
            }
            long[] quarantined = CountingDriver.totalExcept(Set.of(HEARTBEAT, STORM_PAUSES));
            String quarantinedDetail = CountingDriver.byThread().toString();

            // the producer fixes the files and publishes them again: indexed, and each open record closed in the
            // index write's transaction (the admission saw the record: write, close, commit)
            CountingDriver.reset();
            List<String> fixed = new ArrayList<>();
            for (int i = 0; i < BAD; i++) {
                String docId = "bad-" + i + ".pdf";
                fixed.add(pipeline.publishFile("it", docId, write(folder, docId, TextPdf.of("fixed document " + i))));
            }
            for (String key : fixed) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("indexed");
            }
            long[] repaired = CountingDriver.totalExcept(Set.of(HEARTBEAT, STORM_PAUSES));
            String repairedDetail = CountingDriver.byThread().toString();
            for (int i = 0; i < BAD; i++) {
                assertThat(pipeline.store().find("it", "bad-" + i + ".pdf").orElseThrow().disposition())
                        .isEqualTo(Disposition.REPAIRED_CONTENT_CHANGED);
            }

            double tripsPerIndexed = indexed[0] / (double) GOOD;
            double commitsPerIndexed = indexed[1] / (double) GOOD;
            double tripsPerQuarantined = quarantined[0] / (double) BAD;
            double commitsPerQuarantined = quarantined[1] / (double) BAD;
            System.out.printf("COUNTS per indexed message: %.2f round trips, %.2f commits; per quarantined message:"
                    + " %.2f round trips, %.2f commits%n", tripsPerIndexed, commitsPerIndexed, tripsPerQuarantined,
                    commitsPerQuarantined);
            System.out.println("COUNTS indexed detail: " + indexedDetail);
            System.out.println("COUNTS quarantined detail: " + quarantinedDetail);
            double tripsPerRepaired = repaired[0] / (double) BAD;
            double commitsPerRepaired = repaired[1] / (double) BAD;
            System.out.printf("COUNTS per indexed message whose open record it closes: %.2f round trips, %.2f commits;"
                    + " %s%n", tripsPerRepaired, commitsPerRepaired, repairedDetail);

            assertThat(commitsPerIndexed).as("commits per indexed message; " + indexedDetail).isLessThanOrEqualTo(2.0);
            assertThat(tripsPerIndexed).as("round trips per indexed message; " + indexedDetail).isLessThanOrEqualTo(4.0);
            assertThat(commitsPerQuarantined).as("commits per quarantined message; " + quarantinedDetail)
                    .isLessThanOrEqualTo(2.0);
            assertThat(tripsPerQuarantined).as("round trips per quarantined message; " + quarantinedDetail)
                    .isLessThanOrEqualTo(4.0);
            assertThat(commitsPerRepaired).as("commits per indexed message closing a record; " + repairedDetail)
                    .isLessThanOrEqualTo(2.0);
            assertThat(tripsPerRepaired).as("round trips per indexed message closing a record; " + repairedDetail)
                    .isLessThanOrEqualTo(4.0);
        }
    }

    private static Path write(Path folder, String name, byte[] bytes) throws Exception {
        return Files.write(folder.resolve(name), bytes);
    }
}
