package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures {@code ingest samples/pdfs} over a routes copy with a typo ({@code ${body.pageCont}} in the parse step)
 * stops at the fault with exit code 4 and one line saying what to do, quarantines nothing and leaves no attempt
 * open (the faulted ones closed pipeline_fault); and that the next {@code ingest} on the fixed routes settles
 * every document with each class's retries + 1 deliveries, the fault's delivery not among them.
 */
class IngestRouteFaultIT {

    private static final Duration LIMIT = Duration.ofMinutes(5);

    @TempDir
    Path temp;

    @Test
    void shouldStopAtARouteFaultQuarantiningNothingAndIndexOnceTheRouteIsFixed() throws Exception {
        Path data = temp.resolve("data");
        RoutesCopy broken = RoutesCopy.of(temp.resolve("broken")).edit("process-document.camel.yaml", text -> text
                .replace("              - bean: { ref: parseStage, method: parse }\n",
                        "              - bean: { ref: parseStage, method: parse }\n"
                                + "              - setProperty: { name: pages, simple: \"${body.pageCont}\" }\n"));
        // one consumer: the first document meets the fault, and no other has started its own failure by then
        Path log = ConsumerProcess.freshLog("ingest-route-fault.log");
        int exit;
        try (ConsumerProcess ingest = broken.command(List.of("ingest", "samples/pdfs", "--json", "--data-dir",
                data.toString()), Map.of("ingest.consumers", "1", "pipeline-fault.hold-ms", "2000",
                "sqs.port", Integer.toString(FreePort.find())), log)) {
            exit = ingest.awaitExit(LIMIT);
        }
        String out = Files.readString(log);
        assertThat(exit).as("exit code; output:%n%s", out).isEqualTo(IngestCommand.PIPELINE_FAULT_EXIT);
        assertThat(out).contains("ingest: pipeline fault at step parse: expression_failed"
                + " (RuntimeBeanExpressionException); nothing quarantined for it, documents released;"
                + " fix the route file and run again");
        JsonNode summary = summary(out);
        assertThat(summary.at("/pipeline_fault/stage").asText()).isEqualTo("parse");
        assertThat(summary.get("quarantined")).as("summary %s", summary).isEmpty();
        try (Saved db = Saved.open(data)) {
            assertThat(SqlCount.of(db.ds(), "SELECT count(*) FROM quarantine")).as("quarantine records").isZero();
            assertThat(SqlCount.of(db.ds(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open").isZero();
            assertThat(SqlCount.of(db.ds(), "SELECT count(*) FROM attempt_journal WHERE outcome = 'pipeline_fault'"))
                    .as("attempts closed pipeline_fault").isPositive();
            assertThat(SqlCount.of(db.ds(), "SELECT count(*) FROM attempt_journal WHERE outcome <> 'pipeline_fault'"))
                    .as("attempts closed otherwise").isZero();
        }

        RoutesCopy fixed = RoutesCopy.of(temp.resolve("fixed"));
        Path log2 = ConsumerProcess.freshLog("ingest-route-fixed.log");
        try (ConsumerProcess ingest = fixed.command(List.of("ingest", "samples/pdfs", "--json", "--data-dir",
                data.toString()), Map.of("sqs.port", Integer.toString(FreePort.find())), log2)) {
            exit = ingest.awaitExit(LIMIT);
        }
        String out2 = Files.readString(log2);
        assertThat(exit).as("exit code; output:%n%s", out2).isZero();
        JsonNode again = summary(out2);
        assertThat(again.get("indexed").asInt()).as("summary %s", again).isEqualTo(6);
        assertThat(again.get("quarantined").get("permanent_input").asInt()).isEqualTo(6);
        assertThat(again.get("quarantined").get("ambiguous_parse").asInt()).isEqualTo(1);
        assertThat(again.get("pipeline_fault").isNull()).isTrue();
        RedeliveryPolicies policies = ShippedProperties.policies();
        try (Saved db = Saved.open(data)) {
            assertThat(SqlCount.of(db.ds(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL")).isZero();
            // each message quarantined was delivered its class's retries + 1 times, route faults not counted
            try (var c = db.ds().getConnection(); var s = c.createStatement(); ResultSet rs = s.executeQuery("""
                    SELECT j.delivery_key, q.error_class,
                           count(*) FILTER (WHERE j.outcome <> 'pipeline_fault') AS deliveries
                    FROM attempt_journal j JOIN quarantine q ON q.source = j.source AND q.doc_id = j.doc_id
                    WHERE j.delivery_key IN (SELECT delivery_key FROM attempt_journal WHERE outcome = 'quarantined')
                    GROUP BY 1, 2""")) {
                int rows = 0;
                while (rs.next()) {
                    rows++;
                    ErrorClass errorClass = ErrorClass.fromCode(rs.getString("error_class"));
                    assertThat(rs.getInt("deliveries")).as("deliveries of %s (%s)", rs.getString(1), errorClass)
                            .isEqualTo(policies.forClass(errorClass).maxDeliveries());
                }
                // 7 documents; a document whose first run's message was still queued has two messages
                assertThat(rows).as("messages quarantined").isBetween(7, 14);
            }
            // the message the fault released came back and settled on its next delivery, its fault not a death
            try (var c = db.ds().getConnection(); var s = c.createStatement(); ResultSet rs = s.executeQuery("""
                    SELECT delivery_key, count(*) FILTER (WHERE outcome = 'pipeline_fault') AS faults,
                           count(*) FILTER (WHERE outcome IN ('indexed', 'skipped')) AS settled, count(*) AS attempts
                    FROM attempt_journal
                    WHERE delivery_key IN (SELECT delivery_key FROM attempt_journal WHERE outcome = 'pipeline_fault')
                    GROUP BY 1""")) {
                int rows = 0;
                while (rs.next()) {
                    rows++;
                    assertThat(rs.getInt("faults")).isEqualTo(1);
                    assertThat(rs.getInt("settled")).as("settled once").isEqualTo(1);
                    assertThat(rs.getInt("attempts")).isEqualTo(2);
                }
                assertThat(rows).as("messages a fault released").isPositive();
            }
        }
    }

    /** @return the JSON summary among the command's output lines */
    private static JsonNode summary(String output) throws Exception {
        String line = output.lines().filter(l -> l.startsWith("{\"source\"")).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no JSON summary in:\n" + output));
        return new ObjectMapper().readTree(line);
    }

    /** The database a finished {@code ingest} left in its data folder, started again to read it. */
    private record Saved(EmbeddedPostgresService pg, Database db) implements AutoCloseable {

        static Saved open(Path data) throws Exception {
            EmbeddedPostgresService pg = EmbeddedPostgresService.start(data.resolve("postgres"), 0);
            return new Saved(pg, Database.open(pg.jdbcUrl(), pg.user(), pg.password()));
        }

        DataSource ds() {
            return db.dataSource();
        }

        @Override
        public void close() throws Exception {
            try {
                db.close();
            } finally {
                pg.close();
            }
        }
    }
}
