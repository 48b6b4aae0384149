package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.db.NamedSql;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.MutableClock;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures a quarantined Kafka record's dead-letter copy is written to the outbox by its quarantine record's own
 * statement (sql/quarantine-record.sql, as the route runs it): the copy and the record commit or roll back
 * together, a repeat of an already recorded delivery adds no second copy, and a row without a copy (SQS,
 * RabbitMQ) adds none.
 */
class KafkaDeadLetterCopyIT extends PostgresTestBase {

    private static final NamedSql RECORD = NamedSql.load(QuarantineStore.RECORD_SQL);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DLQ = "ingest.dlq";
    private static final KafkaDeadLetters.Origin ORIGIN = new KafkaDeadLetters.Origin("ingest", 2, 41L,
            new byte[] {(byte) 0xff, 0x00, 0x6b}, new byte[] {(byte) 0xfe, 0x00, '{', (byte) 0x80});
    private static final IllegalStateException FAILURE = new IllegalStateException("not a PDF");

    @TempDir
    Path temp;

    private QuarantineStore store;
    private JdbcTemplate jdbc;

    @BeforeEach
    void setUp() throws SQLException {
        store = new QuarantineStore(dataSource(), new LocalPayloadStore(temp.resolve("objects")),
                new MutableClock(Instant.parse("2026-01-05T10:00:00Z")));
        jdbc = new JdbcTemplate(dataSource());
        jdbc.update("TRUNCATE kafka_dlq_outbox RESTART IDENTITY");
    }

    @Test
    void shouldWriteTheCopyWithItsRecordAndOnlyOncePerDelivery() throws Exception {
        Map<String, Object> row = rowWithCopy(1);

        record(row);
        record(row);

        QuarantineRecord r = store.find("it", "bad.pdf").orElseThrow();
        assertThat(r.attempts()).as("the repeat of a recorded delivery wrote nothing").isEqualTo(1);
        List<Map<String, Object>> copies = outbox();
        assertThat(copies).as("one copy per quarantine record, not per write").singleElement().satisfies(c -> {
            assertThat(c.get("topic")).isEqualTo(DLQ);
            assertThat((byte[]) c.get("record_key")).isEqualTo(ORIGIN.key());
            assertThat((byte[]) c.get("record_value")).isEqualTo(ORIGIN.value());
            assertThat(c.get("headers")).isEqualTo(Map.of(KafkaDeadLetters.ORIGIN_TOPIC, "ingest",
                    KafkaDeadLetters.ORIGIN_PARTITION, "2", KafkaDeadLetters.ORIGIN_OFFSET, "41",
                    KafkaDeadLetters.ERROR_CLASS, ErrorClass.PERMANENT_INPUT.code(),
                    KafkaDeadLetters.FINGERPRINT, ErrorFingerprint.of(FAILURE),
                    KafkaDeadLetters.DLQ_ID, r.dlqId()));
        });

        // the next delivery's failure is another attempt of the same record: its own copy, the record's dlq_id
        record(rowWithCopy(2));
        assertThat(outbox()).hasSize(2).allSatisfy(c ->
                assertThat(c.get("headers")).asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.map(String.class,
                        String.class)).containsEntry(KafkaDeadLetters.DLQ_ID, r.dlqId()));
    }

    @Test
    void shouldCommitNeitherRecordNorCopyWhenTheCopyCannotBeWritten() throws Exception {
        try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE FUNCTION test_refuse_outbox() RETURNS trigger LANGUAGE plpgsql AS"
                    + " $$ BEGIN RAISE EXCEPTION 'outbox refused by the test'; END $$");
            s.execute("CREATE TRIGGER test_refuse_outbox BEFORE INSERT ON kafka_dlq_outbox"
                    + " FOR EACH ROW EXECUTE FUNCTION test_refuse_outbox()");
        }
        try {
            assertThatThrownBy(() -> record(rowWithCopy(1))).isInstanceOf(SQLException.class)
                    .hasMessageContaining("outbox refused by the test");
        } finally {
            try (Connection c = dataSource().getConnection(); Statement s = c.createStatement()) {
                s.execute("DROP TRIGGER test_refuse_outbox ON kafka_dlq_outbox");
                s.execute("DROP FUNCTION test_refuse_outbox()");
            }
        }
        assertThat(store.find("it", "bad.pdf")).as("no record without its copy: the message is not acknowledged")
                .isEmpty();
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine_attempt")).isZero();
        assertThat(outbox()).isEmpty();
    }

    @Test
    void shouldWriteNoCopyForARowWithoutOne() throws Exception {
        record(store.evidenceRow(evidence(1)));

        assertThat(store.find("it", "bad.pdf")).isPresent();
        assertThat(outbox()).as("SQS and RabbitMQ: no outbox row").isEmpty();
    }

    private Map<String, Object> rowWithCopy(int deliveryCount) {
        Map<String, Object> row = store.evidenceRow(evidence(deliveryCount));
        new KafkaDeadLetters(null, DLQ).addTo(ORIGIN, row);
        return row;
    }

    private static FailureEvidence evidence(int deliveryCount) {
        return FailureEvidence.builder("it", "bad.pdf").stage("preflight").errorClass(ErrorClass.PERMANENT_INPUT)
                .failure(FAILURE).reasonCode("not_pdf").deliveryKey("kafka:ingest/2/41@t").deliveryCount(deliveryCount)
                .build();
    }

    /** Runs the record's statement as the route's sql: endpoint does: one statement, auto-commit, typed parameters. */
    private void record(Map<String, Object> row) throws SQLException {
        try (Connection c = dataSource().getConnection(); PreparedStatement s = c.prepareStatement(RECORD.sql())) {
            RECORD.bind(s, row);
            s.execute();
        }
    }

    private List<Map<String, Object>> outbox() throws SQLException {
        return jdbc.query("SELECT topic, record_key, record_value, headers::text AS headers FROM kafka_dlq_outbox"
                + " ORDER BY outbox_id", (rs, n) -> {
                    try {
                        return Map.of("topic", rs.getString("topic"), "record_key", rs.getBytes("record_key"),
                                "record_value", rs.getBytes("record_value"), "headers",
                                JSON.readValue(rs.getString("headers"), new TypeReference<Map<String, String>>() { }));
                    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                        throw new SQLException(e);
                    }
                });
    }
}
