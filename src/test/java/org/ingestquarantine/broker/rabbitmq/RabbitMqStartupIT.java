package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.OutageProxy;
import org.ingestquarantine.testsupport.RabbitMqBroker;
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
        Path log = Files.createDirectories(Path.of("target")).resolve("rabbitmq-startup-it.log");
        Files.deleteIfExists(log);
        RabbitMqBroker.ensureRunning();
        RabbitMqBroker.freshVhost(VHOST);
        try (OutageProxy proxy = OutageProxy.to(RabbitMqBroker.PORT);
             EmbeddedPostgresService pg = EmbeddedPostgresService.start(tmp.resolve("pg"), 0);
             Database db = Database.open(pg.jdbcUrl(), pg.user(), pg.password())) {
            proxy.reset(RESETS);
            Map<String, String> props = new HashMap<>(TestPipeline.testProperties());
            props.put("rabbitmq.uri", "amqp://guest:guest@127.0.0.1:" + proxy.port() + "/" + VHOST);
            props.put("db.mode", "external");
            props.put("db.url", pg.jdbcUrl());
            props.put("db.user", pg.user());
            props.put("db.password", pg.password());
            props.put("iq.routes-dir", Path.of("routes").toAbsolutePath().toString());
            props.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
            try (ConsumerProcess consumer = ConsumerProcess.start("rabbitmq", Files.createDirectories(tmp.resolve("data")),
                    props, Map.of(), log)) {
                Awaitility.await("the resets spent").atMost(WAIT).until(() -> proxy.accepted() > 4 || !consumer.isAlive());
                String direct = "amqp://guest:guest@127.0.0.1:" + RabbitMqBroker.PORT + "/" + VHOST;
                Awaitility.await("two consumers on ingest").atMost(WAIT).pollInterval(Duration.ofMillis(250))
                        .until(() -> !consumer.isAlive() || consumers(direct) >= 2);
                assertThat(consumer.isAlive()).as("run still running after its start-up connections were reset").isTrue();

                Path pdf = Path.of("samples", "pdfs", "01-text-one-page.pdf").toAbsolutePath();
                publish(direct, new IngestMessage("cli", "after-resets.pdf", pdf.toUri(), null, null, null));
                Awaitility.await("indexed").atMost(WAIT).until(() -> SqlCount.of(db.dataSource(),
                        "SELECT count(*) FROM documents WHERE doc_id = 'after-resets.pdf' AND state = 'searchable'") == 1);
                assertThat(consumer.terminate()).as("exit code after SIGTERM").isZero();
            }
        } finally {
            RabbitMqBroker.deleteVhost(VHOST);
        }
    }

    private static ConnectionFactory factory(String uri) throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(uri);
        f.setAutomaticRecoveryEnabled(false);
        return f;
    }

    private static long consumers(String uri) {
        try (Connection c = factory(uri).newConnection("startup-it-probe"); Channel ch = c.createChannel()) {
            return ch.consumerCount("ingest");
        } catch (Exception e) {
            return 0; // the consumer declares the queue
        }
    }

    private static void publish(String uri, IngestMessage message) throws Exception {
        try (Connection c = factory(uri).newConnection("startup-it-publisher"); Channel ch = c.createChannel()) {
            ch.confirmSelect();
            ch.basicPublish("ingest", "ingest", new AMQP.BasicProperties.Builder().messageId("after-resets").deliveryMode(2)
                    .contentType("application/json").build(), message.toJson().getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(10_000);
        }
    }
}
