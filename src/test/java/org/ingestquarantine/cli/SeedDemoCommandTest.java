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
import java.util.HashSet;
import java.util.Set;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the seed-scale data set has its stated shape and that stats and cohorts report all of it. */
class SeedDemoCommandTest extends PostgresTestBase {

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
    }

    @Test
    void shouldSeedTheStatedShapeAndReportEveryFingerprint() throws Exception {
        assertThat(run("seed-demo", "--data-dir", data.toString())).startsWith("seeded 412000 attempts over 61400 documents");

        JsonNode stats = JSON.readTree(run("stats", "--json", "--data-dir", data.toString()));
        assertThat(stats.at("/total/records").asLong()).isEqualTo(412_000);
        assertThat(stats.at("/total/documents").asLong()).isEqualTo(61_400);
        assertThat(stats.get("sources")).hasSize(3);
        assertThat(count("SELECT count(*) FROM quarantine_attempt")).isEqualTo(412_000);
        assertThat(count("SELECT count(DISTINCT parser_version) FROM quarantine")).isEqualTo(3);

        JsonNode cohorts = JSON.readTree(run("cohorts", "--json", "--data-dir", data.toString()));
        assertThat(cohorts.get("cut").asInt()).isZero();
        Set<String> listed = new HashSet<>();
        cohorts.get("cohorts").forEach(c -> listed.add(c.get("error_fingerprint").asText()));
        assertThat(listed).hasSize(33)
                .hasSize((int) count("SELECT count(DISTINCT error_fingerprint) FROM quarantine WHERE disposition = 'open'"));
        assertThat(count("SELECT count(*) FROM quarantine WHERE error_fingerprint = 'seedfp0000000000'"))
                .isEqualTo(Math.round(61_400 * 0.43));
        assertThat(count("SELECT count(*) FROM quarantine WHERE error_fingerprint = 'seedfp0000000001'"))
                .isEqualTo(Math.round(61_400 * 0.22));
        assertThat(count("SELECT count(*) FROM quarantine WHERE error_fingerprint = 'seedfp0000000002'"))
                .isEqualTo(Math.round(61_400 * 0.09));

        assertThat(run("seed-demo", "--data-dir", data.toString())).as("never mixed into a non-empty quarantine").isEmpty();
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
