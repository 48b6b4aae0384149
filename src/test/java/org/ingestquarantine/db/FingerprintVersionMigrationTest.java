package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures schema V28 carries a store written before it: every existing record, of either algorithm, gets no
 * fingerprint version (null, before versioning: which algorithm wrote it cannot be told from the database), its
 * fingerprint and summaries untouched; a version is at least 1.
 */
class FingerprintVersionMigrationTest extends PostgresTestBase {

    private static final String SCHEMA = "before_v28";

    @Test
    void shouldLeaveEveryExistingRecordBeforeVersioning() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            // the schema just before V28, whichever migrations other branches add below it
            String before = java.util.Arrays.stream(Flyway.configure().dataSource(dataSource()).schemas(SCHEMA)
                            .defaultSchema(SCHEMA).locations("classpath:db/migration").load().info().all())
                    .map(m -> m.getVersion()).filter(v -> v.isNewerThan("1") && !v.isAtLeast("28"))
                    .max(Comparable::compareTo).orElseThrow().getVersion();
            Flyway.configure().dataSource(dataSource()).schemas(SCHEMA).defaultSchema(SCHEMA)
                    .locations("classpath:db/migration").target(before).load().migrate();
            s.execute("SET search_path TO " + SCHEMA);
            // an open record of the V22-era mixed cohort, one written after (its own fingerprint), and a tombstone
            s.execute("INSERT INTO quarantine (dlq_id, source, doc_id, error_class, error_type, error_fingerprint,"
                    + " reason_code, attempts, first_seen_at, last_seen_at) VALUES"
                    + " ('01HV28MIGRATE0000000000001', 's', 'empty.pdf', 'permanent_input',"
                    + " 'org.ingestquarantine.ingest.HeadRefusalException', 'aaaaaaaaaaaaaaaa', 'empty', 1, now(), now()),"
                    + " ('01HV28MIGRATE0000000000002', 's', 'large.pdf', 'permanent_input',"
                    + " 'org.ingestquarantine.ingest.HeadRefusalException', 'bbbbbbbbbbbbbbbb', 'too_large', 1, now(), now())");
            s.execute("INSERT INTO quarantine (dlq_id, source, doc_id, error_class, attempts, first_seen_at,"
                    + " last_seen_at, disposition, reason_code, closed_at) VALUES ('01HV28MIGRATE0000000000003', 's',"
                    + " 'erased.pdf', 'unclassified', 0, now(), now(), 'erased', 'erased', now())");
            String summaryBefore = one(s, "SELECT string_agg(error_fingerprint || ':' || documents, ',' ORDER BY 1)"
                    + " FROM quarantine_summary");

            Flyway.configure().dataSource(dataSource()).schemas(SCHEMA).defaultSchema(SCHEMA)
                    .locations("classpath:db/migration").target("28").load().migrate();

            assertThat(one(s, "SELECT count(*) FROM quarantine")).isEqualTo("3");
            assertThat(one(s, "SELECT count(*) FROM quarantine WHERE fingerprint_version IS NULL"))
                    .as("no existing record is given a version it cannot be shown to have").isEqualTo("3");
            assertThat(one(s, "SELECT string_agg(error_fingerprint, ',' ORDER BY dlq_id) FROM quarantine"))
                    .isEqualTo("aaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbb");
            assertThat(one(s, "SELECT string_agg(error_fingerprint || ':' || documents, ',' ORDER BY 1)"
                    + " FROM quarantine_summary")).isEqualTo(summaryBefore);
            s.execute("UPDATE quarantine SET fingerprint_version = 2 WHERE doc_id = 'large.pdf'");
            assertThatThrownBy(() -> s.execute("UPDATE quarantine SET fingerprint_version = 0 WHERE doc_id = 'empty.pdf'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("fingerprint_version");
        } finally {
            try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
            }
        }
    }

    private static String one(Statement s, String sql) throws Exception {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
