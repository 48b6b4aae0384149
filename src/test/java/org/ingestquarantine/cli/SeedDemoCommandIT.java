package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the seed-scale data set has its stated shape, that stats and cohorts report all of it, and that the
 * operator commands tell seed 003's story on it.
 */
class SeedDemoCommandIT extends PostgresTestBase {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path data;

    @BeforeEach
    void external() {
        System.setProperty("db.mode", "external");
        System.setProperty("db.url", postgres.jdbcUrl());
        System.setProperty("db.user", postgres.user());
        System.setProperty("db.password", postgres.password());
    }

    @AfterEach
    void clear() {
        System.clearProperty("db.mode");
        System.clearProperty("db.url");
        System.clearProperty("db.user");
        System.clearProperty("db.password");
        System.clearProperty("seed-demo.documents");
        System.clearProperty("seed-demo.attempts");
    }

    /** The demo at a tenth of the shipped scale: the shares are the same, the test is fast. */
    private static final int SCALE_DOWN = 10;

    @Test
    void shouldSeedTheStatedShapeAndReportEveryFingerprint() throws Exception {
        int documents = (int) (shipped("seed-demo.documents") / SCALE_DOWN);
        long attempts = (long) shipped("seed-demo.attempts") / SCALE_DOWN;
        System.setProperty("seed-demo.documents", Integer.toString(documents));
        System.setProperty("seed-demo.attempts", Long.toString(attempts));
        assertThat(run("seed-demo", "--data-dir", data.toString()))
                .startsWith("seeded " + attempts + " attempts over " + documents + " documents");

        JsonNode stats = JSON.readTree(run("stats", "--json", "--data-dir", data.toString()));
        assertThat(stats.at("/total/records").asLong()).as("attempts").isEqualTo(attempts);
        assertThat(stats.at("/total/documents").asLong()).isEqualTo(documents);
        assertThat(stats.get("sources")).hasSize(3);
        assertThat(count("SELECT count(*) FROM quarantine_attempt")).isEqualTo(attempts);
        assertThat(count("SELECT count(DISTINCT parser_version) FROM quarantine")).isEqualTo(3);

        JsonNode cohorts = JSON.readTree(run("cohorts", "--json", "--data-dir", data.toString()));
        assertThat(cohorts.get("cut").asInt()).isZero();
        Set<String> listed = new HashSet<>();
        cohorts.get("cohorts").forEach(c -> listed.add(c.get("error_fingerprint").asText()));
        assertThat(listed).hasSize(33)
                .hasSize((int) count("SELECT count(DISTINCT error_fingerprint) FROM quarantine WHERE disposition = 'open'"));
        assertThat(count("SELECT count(*) FROM quarantine WHERE error_fingerprint = 'seedfp0000000000'"))
                .isEqualTo(Math.round(documents * 0.43));
        assertThat(count("SELECT count(*) FROM quarantine WHERE error_fingerprint = 'seedfp0000000001'"))
                .isEqualTo(Math.round(documents * 0.22));
        assertThat(count("SELECT count(*) FROM quarantine WHERE error_fingerprint = 'seedfp0000000002'"))
                .isEqualTo(Math.round(documents * 0.09));

        assertThat(run("seed-demo", "--data-dir", data.toString())).as("never mixed into a non-empty quarantine").isEmpty();
    }

    /** Seed 003 told by the demo: coverage per source, owners with a gap, payloads reproduce parses, a canary that repairs. */
    @Test
    void shouldTellSeed003sStory() throws Exception {
        int documents = (int) (shipped("seed-demo.documents") / SCALE_DOWN);
        System.setProperty("seed-demo.documents", Integer.toString(documents));
        System.setProperty("seed-demo.attempts", Long.toString((long) shipped("seed-demo.attempts") / SCALE_DOWN));
        run("seed-demo", "--data-dir", data.toString());
        List<String> sources = list("seed-demo.sources");
        List<String> coverages = list("seed-demo.coverage-percent");
        List<String> shares = list("seed-demo.source-shares-percent");
        List<String> owners = list("seed-demo.owners");

        JsonNode coverage = JSON.readTree(run("coverage", "--json", "--data-dir", data.toString()));
        Map<String, JsonNode> bySource = new HashMap<>();
        coverage.get("sources").forEach(r -> bySource.put(r.get("source").asText(), r));
        for (int i = 0; i < sources.size(); i++) {
            JsonNode row = bySource.get(sources.get(i));
            double figure = Double.parseDouble(coverages.get(i)) / 100;
            // the source's open records: its share, less the one in ten closed as repaired (and one document of
            // rounding): coverage is the figure to within one indexed document over the source's documents
            double open = documents * Integer.parseInt(shares.get(i)) / 100.0 * 0.9;
            double tolerance = 1.0 / (open / (1 - figure)) + 0.0005;
            assertThat(row.get("coverage").asDouble()).as("coverage of %s", sources.get(i))
                    .isCloseTo(figure, org.assertj.core.data.Offset.offset(tolerance));
        }

        JsonNode overdue = JSON.readTree(run("overdue", "--json", "--data-dir", data.toString()));
        Set<String> overdueOwners = new HashSet<>();
        overdue.get("owners").forEach(o -> overdueOwners.add(o.get("owner").asText()));
        assertThat(overdueOwners).as("every owner named, and the gap").containsExactlyInAnyOrderElementsOf(
                owners.stream().map(o -> o.isEmpty() ? OperatorService.UNOWNED : o).toList());
        assertThat(owners).as("one source owned by nobody").containsOnlyOnce("");

        String sampled = query("SELECT dlq_id FROM quarantine WHERE payload_uri IS NOT NULL AND disposition = 'open'"
                + " ORDER BY first_seen_at, dlq_id LIMIT 1");
        JsonNode reproduced = JSON.readTree(run("reproduce", sampled, "--json", "--data-dir", data.toString()));
        assertThat(reproduced.get("outcome").asText()).isEqualTo("NOW_PARSES");

        JsonNode canary = JSON.readTree(run("drain", "--fingerprint", "seedfp0000000000", "--limit", "10",
                "--rate", "50", "--json", "--data-dir", data.toString()));
        assertThat(canary.at("/outcomes/repaired_parser_fixed").asLong()).as(canary.toString()).isPositive();
        long closed = canary.at("/outcomes/repaired_parser_fixed").asLong()
                + canary.at("/outcomes/repaired_content_changed").asLong() + canary.at("/outcomes/deleted_at_source").asLong();
        assertThat(count("SELECT count(*) FROM quarantine WHERE payload_uri IS NOT NULL AND disposition <> 'open'"))
                .as("the sample's records the canary closed: %s", canary.get("outcomes")).isEqualTo(closed);
    }

    private static double shipped(String key) {
        return Double.parseDouble(ShippedProperties.lookup().apply(key).orElseThrow());
    }

    private static List<String> list(String key) {
        return Arrays.stream(ShippedProperties.lookup().apply(key).orElseThrow().split(",", -1)).map(String::trim)
                .toList();
    }

    private static String query(String sql) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static long count(String sql) throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        IngestQuarantineCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(new StringWriter()))
                .execute(args);
        return out.toString();
    }
}
