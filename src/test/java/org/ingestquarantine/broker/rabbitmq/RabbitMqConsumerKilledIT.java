package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.RabbitMqBroker;
import org.ingestquarantine.testsupport.RabbitMqVhost;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a kill -9 costs a RabbitMQ message one delivery count with the profile's two consumers per process
 * (issue 21 item 6): a document whose consumer is killed twice mid-parse is counted 1, 2 and 3 over its three
 * deliveries, and the third, past the resource_fatal budget of two, quarantines it as consumer_died. The
 * consumers run in their own JVMs ({@code run --profile rabbitmq}) on a vhost of this test's own.
 */
class RabbitMqConsumerKilledIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String VHOST = "iq-consumer-killed-it";

    @TempDir
    Path tmp;

    @Test
    void shouldCountEachKillOfATwoConsumerProcessAsOneDelivery() throws Exception {
        Path log = ConsumerProcess.freshLog("rabbitmq-consumer-killed-it.log");
        try (RabbitMqVhost vhost = RabbitMqVhost.fresh(VHOST);
             EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
            Map<String, String> props = TestPipeline.externalConsumerProperties(pg);
            props.put("rabbitmq.uri", vhost.uri(RabbitMqBroker.PORT));
            Path data = Files.createDirectories(tmp.resolve("data"));
            Path longPdf = LongPdf.write(tmp.resolve("long.pdf"), 600);
            String key = RabbitMqBrokerAdapter.KEY_PREFIX + "killed-twice";

            for (int death = 1; death <= 2; death++) {
                try (ConsumerProcess consumer = ConsumerProcess.start("rabbitmq", data, props, Map.of(), log)) {
                    if (death == 1) {
                        // the first consumer declares the topology; the message is published once it listens
                        Awaitility.await("two consumers on ingest").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                                .until(() -> vhost.consumers("ingest") >= 2);
                        vhost.publish("killed-twice", new IngestMessage("kill", "long.pdf", longPdf.toUri(), null, null, null));
                    }
                    int expected = death;
                    Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(50))
                            .until(() -> openWorkingAttempts(db, key) >= expected);
                    consumer.kill9();
                }
            }

            QuarantineStore store = new QuarantineStore(db.dataSource(), new LocalPayloadStore(tmp.resolve("objects")),
                    java.time.Clock.systemUTC());
            try (ConsumerProcess consumer = ConsumerProcess.start("rabbitmq", data, props, Map.of(), log)) {
                Awaitility.await().atMost(WAIT).until(() -> store.find("kill", "long.pdf").isPresent());
                QuarantineRecord r = store.find("kill", "long.pdf").orElseThrow();
                assertThat(r.errorClass()).isEqualTo(ErrorClass.RESOURCE_FATAL);
                assertThat(r.reasonCode()).isEqualTo("consumer_died");
                List<Integer> counts = new ArrayList<>(journalCounts(db, key));
                store.attempts(r.dlqId()).stream().map(QuarantineAttempt::deliveryCount).forEach(counts::add);
                assertThat(counts).as("delivery counts: two started attempts, then the quarantining delivery")
                        .containsExactly(1, 2, 3);
                assertThat(consumer.terminate()).as("exit code after SIGTERM").isZero();
            }
        }
    }

    private static long openWorkingAttempts(Database db, String key) throws Exception {
        return SqlCount.of(db.dataSource(), "SELECT count(*) FROM attempt_journal WHERE delivery_key = ? AND closed_at IS NULL"
                + " AND stage IN ('parse', 'chunk', 'embed')", key);
    }

    private static List<Integer> journalCounts(Database db, String key) throws Exception {
        List<Integer> counts = new ArrayList<>();
        try (java.sql.Connection c = db.dataSource().getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT delivery_count FROM attempt_journal WHERE delivery_key = ? ORDER BY attempt_id")) {
            s.setString(1, key);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    counts.add(rs.getInt(1));
                }
            }
        }
        return counts;
    }
}
