package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.OutageProxy;
import org.ingestquarantine.testsupport.RabbitMqBroker;
import org.ingestquarantine.testsupport.RabbitMqVhost;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures {@code run --profile rabbitmq} whose broker connections are reset during start-up retries them and
 * goes on consuming (issue 21 item 6), as it does when the connection drops while it runs: the broker is reached
 * through a TCP proxy on loopback that resets the first connections (RST before a byte of AMQP), then forwards.
 * Before, the run exited 1. A broker that stays unreachable still ends the run, after
 * {@code rabbitmq.startup-retry-ms}, with one line naming it.
 */
class RabbitMqStartupIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String VHOST = "iq-startup-it";
    /**
     * Connections the proxy resets: the publisher's first two (it declares the retry queue while the broker is
     * wired) and then the consumers' first (camel-spring-rabbitmq declares the queues as the route starts).
     */
    private static final Integer[] RESETS = {1, 2, 4};

    @TempDir
    Path tmp;

    @Test
    void shouldRetryABrokerThatResetsItsConnectionsDuringStartUp() throws Exception {
        Path log = ConsumerProcess.freshLog("rabbitmq-startup-it.log");
        try (RabbitMqVhost vhost = RabbitMqVhost.fresh(VHOST);
             OutageProxy proxy = OutageProxy.to(RabbitMqBroker.PORT);
             EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
            proxy.reset(RESETS);
            Map<String, String> props = TestPipeline.externalConsumerProperties(pg);
            props.put("rabbitmq.uri", vhost.uri(proxy.port()));
            try (ConsumerProcess consumer = ConsumerProcess.start("rabbitmq", Files.createDirectories(tmp.resolve("data")),
                    props, Map.of(), log)) {
                Awaitility.await("the resets spent").atMost(WAIT).until(() -> proxy.accepted() > 4 || !consumer.isAlive());
                Awaitility.await("two consumers on ingest").atMost(WAIT).pollInterval(Duration.ofMillis(250))
                        .until(() -> !consumer.isAlive() || vhost.consumers("ingest") >= 2);
                assertThat(consumer.isAlive()).as("run still running after its start-up connections were reset").isTrue();

                Path pdf = Path.of("samples", "pdfs", "01-text-one-page.pdf").toAbsolutePath();
                vhost.publish("after-resets", new IngestMessage("cli", "after-resets.pdf", pdf.toUri(), null, null, null));
                Awaitility.await("indexed").atMost(WAIT).until(() -> SqlCount.of(db.dataSource(),
                        "SELECT count(*) FROM documents WHERE doc_id = 'after-resets.pdf' AND state = 'searchable'") == 1);
                assertThat(consumer.terminate()).as("exit code after SIGTERM").isZero();
            }
        }
    }
}
