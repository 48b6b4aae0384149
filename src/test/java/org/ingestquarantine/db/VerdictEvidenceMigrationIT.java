package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Statement;
import org.ingestquarantine.testsupport.MigrationSchema;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;

/**
 * Ensures schema V22 carries a store written before it: attempts become the deliveries its history knows (per
 * delivery key the highest count), the writes are kept as {@code quarantine_writes}, and a finished run that
 * attempted nothing is re-labelled {@code nothing_attempted}.
 */
class VerdictEvidenceMigrationIT extends PostgresTestBase {

    private static final String SCHEMA = "before_v22";

    @Test
    void shouldRecountAttemptsAsDeliveriesAndRelabelRunsThatAttemptedNothing() throws Exception {
        try (MigrationSchema schema = MigrationSchema.migratedTo(dataSource(), SCHEMA, "20")) {
            Statement s = schema.statement();
            s.execute("INSERT INTO quarantine (dlq_id, source, doc_id, error_class, attempts, first_seen_at,"
                    + " last_seen_at) VALUES ('01HMIGRATE0000000000000001', 's', 'redelivered.pdf', 'transient', 2,"
                    + " now(), now()), ('01HMIGRATE0000000000000002', 's', 'once.pdf', 'permanent_input', 1, now(), now())");
            s.execute("INSERT INTO quarantine_attempt (dlq_id, attempt_no, seen_at, error_class, delivery_count,"
                    + " delivery_key) VALUES ('01HMIGRATE0000000000000001', 1, now(), 'transient', 3, 'k1'),"
                    + " ('01HMIGRATE0000000000000001', 2, now(), 'transient', 1, 'k2'),"
                    + " ('01HMIGRATE0000000000000002', 1, now(), 'permanent_input', null, null)");
            s.execute("INSERT INTO drain_runs (run_id, started_by, started_at, finished_at, status, error_fingerprint,"
                    + " limit_documents, rate_per_s, cohort_documents, selected, outcome_counts) VALUES"
                    + " ('01HRUNNOTHING0000000000000', 't', now(), now(), 'finished', 'fp', 1, 1, 1, 1,"
                    + " '{\"not_attempted:unknown_source\": 1}'),"
                    + " ('01HRUNREPAIRED000000000000', 't', now(), now(), 'finished', 'fp', 2, 1, 2, 2,"
                    + " '{\"not_attempted:unknown_source\": 1, \"repaired_parser_fixed\": 1}')");

            schema.migrate("latest");

            assertThat(schema.one("SELECT attempts || '/' || quarantine_writes FROM quarantine WHERE doc_id = 'redelivered.pdf'"))
                    .as("3 deliveries of k1 and 1 of k2, two writes").isEqualTo("4/2");
            assertThat(schema.one("SELECT attempts || '/' || quarantine_writes FROM quarantine WHERE doc_id = 'once.pdf'"))
                    .isEqualTo("1/1");
            assertThat(schema.one("SELECT string_agg(status, ',' ORDER BY run_id) FROM drain_runs"))
                    .isEqualTo("nothing_attempted,finished");
        }
    }
}
