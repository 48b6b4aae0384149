package org.ingestquarantine.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.CountingSockets;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the quarantine's {@code sql:} endpoint, configured as in routes/quarantine.camel.yaml, runs the record's
 * statement in one protocol round trip, with every value (nulls of each type included) written as given.
 */
class NamedSqlStrategyIT extends PostgresTestBase {

    @TempDir
    Path temp;

    @Test
    void shouldRunTheRecordStatementInOneRoundTrip() throws Exception {
        try (Database counted = Database.open(CountingSockets.jdbcUrl(postgres.jdbcUrl()), postgres.user(),
                postgres.password());
             DefaultCamelContext camel = new DefaultCamelContext()) {
            QuarantineStore store = new QuarantineStore(counted.dataSource(),
                    new LocalPayloadStore(temp.resolve("objects")), Clock.systemUTC());
            camel.getRegistry().bind("dataSource", counted.dataSource());
            camel.getRegistry().bind("namedSqlStrategy", new NamedSqlStrategy());
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:record").to("sql:classpath:" + QuarantineStore.RECORD_SQL
                            + "?dataSource=#dataSource&prepareStatementStrategy=#namedSqlStrategy&parametersCount="
                            + QuarantineStore.recordParameters());
                }
            });
            camel.start();
            ProducerTemplate producer = camel.createProducerTemplate();
            // past the driver's prepare threshold (5 executions), where untyped nulls would have the statement
            // described and from then on cost a Sync and its answer before every execution
            for (int i = 0; i < 20; i++) {
                producer.requestBody("direct:record", row(store, i), List.class);
            }
            long before = CountingSockets.sendsBy(Thread.currentThread());
            for (int i = 20; i < 30; i++) {
                List<?> result = producer.requestBody("direct:record", row(store, i), List.class);
                assertThat(result).as("the statement returns the record's id").hasSize(1);
            }
            assertThat((CountingSockets.sendsBy(Thread.currentThread()) - before) / 10.0)
                    .as("round trips per record").isEqualTo(1.0);
        }
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine WHERE source = 'rt'")).isEqualTo(30);
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine WHERE source = 'rt' AND ingest_seq = 21"
                + " AND source_updated_at = '2025-03-01T10:00:00Z' AND attempts = 1")).isEqualTo(1);
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine WHERE source = 'rt' AND doc_id = 'd-20'"
                + " AND ingest_seq IS NULL AND source_updated_at IS NULL AND payload_uri IS NULL")).isEqualTo(1);
        assertThat(SqlCount.of(dataSource(), "SELECT count(*) FROM quarantine_attempt WHERE delivery_count = 1"
                + " AND delivery_key LIKE 'rt/%'")).isEqualTo(30);
    }

    /** A record's row; every other one has no ingest sequence and no source time (nulls of bigint and timestamptz). */
    private static Map<String, Object> row(QuarantineStore store, int n) {
        FailureEvidence.Builder e = FailureEvidence.builder("rt", "d-" + n).errorClass(ErrorClass.AMBIGUOUS_PARSE)
                .errorType("java.lang.IllegalStateException").errorMessage("seeded " + n).stackTrace("trace " + n)
                .deliveryKey("rt/" + n).deliveryCount(1);
        if (n % 2 == 1) {
            e.ingestSeq((long) n).sourceUpdatedAt(Instant.parse("2025-03-01T10:00:00Z"));
        }
        return store.evidenceRow(e.build());
    }
}
