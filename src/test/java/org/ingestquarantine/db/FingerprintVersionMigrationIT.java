package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.sql.Statement;
import org.ingestquarantine.testsupport.MigrationSchema;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures schema V28 carries a store written before it: every existing record, of either algorithm, gets no
 * fingerprint version (null, before versioning: which algorithm wrote it cannot be told from the database), its
 * fingerprint and summaries untouched; a version is at least 1.
 */
class FingerprintVersionMigrationIT extends PostgresTestBase {

    @Test
    void shouldLeaveEveryExistingRecordBeforeVersioning() throws Exception {
        // the schema just before V28, whichever migrations other branches add below it
        try (MigrationSchema schema = MigrationSchema.migratedTo(dataSource(), "before_v28",
                MigrationSchema.newestBefore(dataSource(), "28"))) {
            Statement s = schema.statement();
            // two open records of the V22-era mixed cohort's reasons, each in its own cohort, and a tombstone
            s.execute("INSERT INTO quarantine (dlq_id, source, doc_id, error_class, error_type, error_fingerprint,"
                    + " reason_code, attempts, first_seen_at, last_seen_at) VALUES"
                    + " ('01HV28MIGRATE0000000000001', 's', 'empty.pdf', 'permanent_input',"
                    + " 'org.ingestquarantine.ingest.HeadRefusalException', 'aaaaaaaaaaaaaaaa', 'empty', 1, now(), now()),"
                    + " ('01HV28MIGRATE0000000000002', 's', 'large.pdf', 'permanent_input',"
                    + " 'org.ingestquarantine.ingest.HeadRefusalException', 'bbbbbbbbbbbbbbbb', 'too_large', 1, now(), now())");
            s.execute("INSERT INTO quarantine (dlq_id, source, doc_id, error_class, attempts, first_seen_at,"
                    + " last_seen_at, disposition, reason_code, closed_at) VALUES ('01HV28MIGRATE0000000000003', 's',"
                    + " 'erased.pdf', 'unclassified', 0, now(), now(), 'erased', 'erased', now())");
            String summary = "SELECT string_agg(error_fingerprint || ':' || documents, ',' ORDER BY 1) FROM quarantine_summary";
            String summaryBefore = schema.one(summary);

            schema.migrate("28");

            assertThat(schema.one("SELECT count(*) FROM quarantine")).isEqualTo("3");
            assertThat(schema.one("SELECT count(*) FROM quarantine WHERE fingerprint_version IS NULL"))
                    .as("no existing record is given a version it cannot be shown to have").isEqualTo("3");
            assertThat(schema.one("SELECT string_agg(error_fingerprint, ',' ORDER BY dlq_id) FROM quarantine"))
                    .isEqualTo("aaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbb");
            assertThat(schema.one(summary)).isEqualTo(summaryBefore);
            s.execute("UPDATE quarantine SET fingerprint_version = 2 WHERE doc_id = 'large.pdf'");
            assertThatThrownBy(() -> s.execute("UPDATE quarantine SET fingerprint_version = 0 WHERE doc_id = 'empty.pdf'"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("fingerprint_version");
        }
    }
}
