package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.delivery.SourcePauses;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.operator.Storms;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the failure-storm breaker on the real pipeline (embedded SQS and PostgreSQL, the parser's worker pool): a
 * broken parser setting ({@code parse.max-pages=1}, every document of the storm source failing page_limit, a
 * fingerprint new to it) pauses that source after {@code storm.min-deliveries}, its remaining documents are neither
 * quarantined nor worked on, through a restart with the parser fixed, and are indexed once it is resumed; a source
 * beside it, healthy but for a few scattered failures, is never paused and indexes throughout.
 */
class FailureStormIT {

    private static final Duration WAIT = Duration.ofSeconds(180);
    private static final int STORM_DOCUMENTS = 20;
    private static final int CALM_DOCUMENTS = 20;
    /** Every fifth document of the calm source is not a PDF: 20%, a few scattered failures. */
    private static final int CALM_FAILING_EVERY = 5;

    @TempDir
    Path tmp;

    @Test
    void shouldPauseTheSourceOfANewFingerprintStormAndIndexTheRestOnceFixedAndResumed() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Path stormDocs = Files.createDirectories(tmp.resolve("storm"));
        Path calmDocs = Files.createDirectories(tmp.resolve("calm"));
        List<Path> storming = new ArrayList<>();
        List<Path> calm = new ArrayList<>();
        for (int i = 0; i < STORM_DOCUMENTS; i++) {
            storming.add(Files.write(stormDocs.resolve("s" + i + ".pdf"),
                    TextPdf.of("report " + i + " page one", "report " + i + " page two")));
        }
        for (int i = 0; i < CALM_DOCUMENTS; i++) {
            Path file = calmDocs.resolve("c" + i + ".pdf");
            calm.add(i % CALM_FAILING_EVERY == CALM_FAILING_EVERY - 1
                    ? Files.writeString(file, "<html>not a PDF</html>")
                    : Files.write(file, TextPdf.of("note " + i)));
        }
        Map<String, String> fixed = properties(stormDocs, calmDocs);
        Map<String, String> broken = new HashMap<>(fixed);
        broken.put("parse.max-pages", "1"); // the regression: every two-page document fails page_limit

        long quarantined;
        String fingerprint;
        try (TestPipeline pipeline = TestPipeline.start(data, broken)) {
            for (int i = 0; i < Math.max(STORM_DOCUMENTS, CALM_DOCUMENTS); i++) {
                pipeline.publishFile("storm", storming.get(i).getFileName().toString(), storming.get(i));
                pipeline.publishFile("calm", calm.get(i).getFileName().toString(), calm.get(i));
            }
            DataSource db = pipeline.dataSource();
            SourcePauses pauses = new SourcePauses(db, Clock.systemUTC());
            await().atMost(WAIT).until(() -> pauses.open().containsKey("storm"));
            SourcePauses.Pause pause = pauses.open().get("storm");
            fingerprint = pause.fingerprint();
            assertThat(pause.errorClass()).isEqualTo("permanent_input");
            assertThat(pause.failed()).as("storm.min-deliveries, all failing (one more if two failed at once)")
                    .isBetween(6, 7);
            assertThat(pause.deliveries()).isEqualTo(pause.failed());

            // the healthy source goes on beside it: every document settles, none of it paused
            await().atMost(WAIT).until(() -> searchable(db, "calm") + records(db, "calm") == CALM_DOCUMENTS);
            assertThat(records(db, "calm")).isEqualTo(CALM_DOCUMENTS / CALM_FAILING_EVERY);
            assertThat(pauses.open()).containsOnlyKeys("storm");

            // the storm's documents: those that failed before the pause (and were in flight) are quarantined, one
            // record each, with the storm's fingerprint; the rest are handed back, not quarantined, not worked on
            await().atMost(WAIT).until(() -> SqlCount.of(db, "SELECT count(*) FROM attempt_journal"
                    + " WHERE source = 'storm' AND outcome = 'storm_paused'") >= 5);
            quarantined = records(db, "storm");
            Thread.sleep(3_000);
            assertThat(records(db, "storm")).as("no further record").isEqualTo(quarantined);
            assertThat(quarantined).as("the cohort before the pause, not the corpus").isBetween(6L, 10L);
            assertThat(SqlCount.of(db, "SELECT count(*) FROM quarantine WHERE source = 'storm'"
                    + " AND error_fingerprint <> ?", fingerprint)).as("one fingerprint").isZero();
            assertThat(searchable(db, "storm")).isZero();
            assertThat(paused(pipeline, "storm")).isEqualTo(1.0);
            assertThat(paused(pipeline, "calm")).isEqualTo(0.0);
        }

        // the parser fixed, the process restarted: the source stays paused until an operator resumes it
        try (TestPipeline pipeline = TestPipeline.start(data, fixed)) {
            DataSource db = pipeline.dataSource();
            await().atMost(WAIT).until(() -> paused(pipeline, "storm") == 1.0);
            Thread.sleep(3_000);
            assertThat(searchable(db, "storm")).as("not worked on while paused").isZero();
            assertThat(records(db, "storm")).isEqualTo(quarantined);

            new Storms(new SourcePauses(db, Clock.systemUTC())).resume("storm", "it");

            await().atMost(WAIT).until(() -> searchable(db, "storm") == STORM_DOCUMENTS - quarantined);
            assertThat(records(db, "storm")).as("the cohort stays open for a drain").isEqualTo(quarantined);
            assertThat(SqlCount.of(db, "SELECT count(*) FROM quarantine q JOIN documents d ON d.source = q.source"
                    + " AND d.doc_id = q.doc_id WHERE q.source = 'storm'")).as("no indexed document has a record").isZero();
            assertThat(new SourcePauses(db, Clock.systemUTC()).open()).isEmpty();
            await().atMost(WAIT).until(() -> paused(pipeline, "storm") == 0.0);
        }
    }

    private static Map<String, String> properties(Path stormDocs, Path calmDocs) {
        Map<String, String> p = new HashMap<>();
        p.put("sources.storm.file-roots", stormDocs.toString());
        p.put("sources.calm.file-roots", calmDocs.toString());
        p.put("storm.window-deliveries", "10");
        p.put("storm.min-deliveries", "6");
        p.put("storm.failing-percent", "50");
        p.put("storm.pause-cache-ms", "200");
        // under the embedded queue's maxReceiveCount of hand-backs in this test's pause: each delivery is handed back
        p.put("storm.hand-back-ms", "8000");
        return p;
    }

    private static long searchable(DataSource db, String source) throws SQLException {
        return SqlCount.of(db, "SELECT count(*) FROM documents WHERE source = ? AND state = 'searchable'", source);
    }

    private static long records(DataSource db, String source) throws SQLException {
        return SqlCount.of(db, "SELECT count(*) FROM quarantine WHERE source = ?", source);
    }

    private static double paused(TestPipeline pipeline, String source) {
        var gauge = pipeline.bean("pipelineMetrics", PipelineMetrics.class).registry().find(PipelineMetrics.STORM_PAUSED)
                .tag("source", source).gauge();
        return gauge == null ? -1 : gauge.value();
    }
}
