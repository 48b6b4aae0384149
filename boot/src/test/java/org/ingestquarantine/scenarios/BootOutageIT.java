package org.ingestquarantine.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.awaitility.Awaitility;
import org.ingestquarantine.boot.Actuator;
import org.ingestquarantine.boot.BootApplication;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.Scrape;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Ensures the scenario suite's core cases hold when Spring Boot runs the pipeline (embedded profile: ElasticMQ
 * behind {@link SqsFixture}'s receive counter, embedded PostgreSQL): each class delivered retries + 1 times then
 * one quarantine row, and /actuator/prometheus lists ingest.quarantined; a 30 s database outage loses nothing
 * while /actuator/health reports the database DOWN, and UP again once it is back. One application context
 * serves both, as a platform would run it. (Boot's test support turns metrics export off unless
 * {@code @AutoConfigureObservability}; the application has it on.)
 */
@SpringBootTest(classes = BootApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("embedded")
@AutoConfigureObservability
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BootOutageIT {

    private static final SqsFixture SQS = new SqsFixture();
    private static HttpServer unavailable;
    private static boolean fixturesClosedWithContext;

    @Autowired
    CamelContext camel;

    @LocalServerPort
    int port;

    /** The fixtures close with the application context, after Camel has stopped consuming from them. */
    @Autowired
    void closeFixturesWith(ConfigurableApplicationContext context) {
        if (!fixturesClosedWithContext) {
            ((DefaultSingletonBeanRegistry) context.getBeanFactory()).registerDisposableBean("bootScenariosFixtures", (DisposableBean) BootOutageIT::stopFixtures);
            fixturesClosedWithContext = true;
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws Exception {
        unavailable = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        unavailable.createContext("/", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        unavailable.start();
        Map<String, String> p = new HashMap<>(SQS.start());
        p.putAll(TestPipeline.testProperties());
        p.put("iq.data-dir", Files.createTempDirectory("boot-scenarios").toString());
        p.put("sources.it.http-allow", "http://127.0.0.1:" + unavailable.getAddress().getPort());
        p.put("sources.it.http-allow-private", "true");
        p.put("metrics.store-poll-ms", "500");
        p.forEach((key, value) -> registry.add(key, () -> value));
    }

    private static void stopFixtures() {
        SQS.close();
        unavailable.stop(0);
    }

    @Test
    @Order(1)
    void shouldDeliverEachClassRetriesPlusOneTimesThenQuarantineOnce() throws Exception {
        TestPipeline pipeline = TestPipeline.attach(camel, SQS);
        String good = pipeline.publishFile("it", "good.pdf", Corpus.file("c0007.pdf"));
        String notPdf = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));
        String damaged = pipeline.publishFile("it", "damaged.pdf", Corpus.file("c0069.pdf"));
        String flaky = pipeline.publish(new IngestMessage("it", "flaky.pdf",
                URI.create("http://127.0.0.1:" + unavailable.getAddress().getPort() + "/flaky.pdf"), null, null, null));

        assertThat(pipeline.awaitOutcome(good, BrokerScenarios.WAIT)).isEqualTo("indexed");
        assertThat(pipeline.deliveries(good)).isEqualTo(1);
        for (String key : List.of(notPdf, damaged, flaky)) {
            assertThat(pipeline.awaitOutcome(key, BrokerScenarios.WAIT)).as(key).isEqualTo("quarantined");
        }
        pipeline.assertQuarantinedOnce(notPdf, "it", "html.pdf", ErrorClass.PERMANENT_INPUT, "not_pdf");
        pipeline.assertQuarantinedOnce(damaged, "it", "damaged.pdf", ErrorClass.AMBIGUOUS_PARSE, "parse_error");
        pipeline.assertQuarantinedOnce(flaky, "it", "flaky.pdf", ErrorClass.TRANSIENT, "http_503");
        assertThat(SQS.deadLettered()).as("the broker's dead letters").isZero();

        // the meters Camel Main exports at /metrics, under the same Prometheus names
        Scrape scrape = Scrape.of(Actuator.onPort(port).prometheus(), Duration.ofSeconds(20));
        assertThat(scrape.sum("ingest_quarantined_total", Map.of("source", "it", "error_class", "permanent_input")))
                .isEqualTo(1.0);
        Awaitility.await("store gauges read").atMost(BrokerScenarios.WAIT).untilAsserted(() -> assertThat(
                Scrape.of(Actuator.onPort(port).prometheus(), Duration.ofSeconds(20)).names()).contains(
                "ingest_processed_total", "ingest_failed_total", "quarantine_open_documents",
                "quarantine_oldest_open_age_seconds", "quarantine_gauges_age_seconds", "camel_exchanges_total"));
    }

    /**
     * The database outage scenario of {@link BrokerScenarios} under Boot, with Actuator watching: DOWN (HTTP 503,
     * component database DOWN) while PostgreSQL is stopped, UP again once it is back, and every message of the
     * batch recorded once.
     */
    @Test
    @Order(2)
    void shouldRecordEveryMessageOnceAndReportTheDatabaseDownWhileItIsStopped() throws Exception {
        TestPipeline pipeline = TestPipeline.attach(camel, SQS);
        Actuator actuator = Actuator.onPort(port);
        assertThat(actuator.health().status("database")).isEqualTo("UP");
        BrokerScenarios.Batch batch = BrokerScenarios.Batch.publish(pipeline, "outage");
        EmbeddedPostgresService postgres = pipeline.postgres();

        Awaitility.await("first outcomes").atMost(BrokerScenarios.WAIT).pollInterval(Duration.ofMillis(20))
                .until(() -> pipeline.settlements() >= 2);
        postgres.stop();
        long settledBeforeOutage = pipeline.settlements();
        assertThat(settledBeforeOutage).as("the outage must catch messages in flight").isLessThan(batch.sent());
        Awaitility.await("health DOWN").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Actuator.HealthReport health = actuator.health();
            assertThat(health.status("database")).isEqualTo("DOWN");
            assertThat(health.code()).isEqualTo(503);
        });
        Awaitility.await("nothing settled or dead-lettered while the database is down")
                .during(BrokerScenarios.DB_OUTAGE).atMost(BrokerScenarios.DB_OUTAGE.plusSeconds(30))
                .pollInterval(Duration.ofSeconds(1))
                .until(() -> pipeline.settlements() == settledBeforeOutage && SQS.deadLettered() == 0);
        postgres.start();

        for (String key : batch.good().keySet()) {
            assertThat(pipeline.awaitOutcome(key, BrokerScenarios.WAIT)).as(batch.good().get(key)).isEqualTo("indexed");
        }
        for (String key : batch.bad().keySet()) {
            assertThat(pipeline.awaitOutcome(key, BrokerScenarios.WAIT)).as(batch.bad().get(key)).isEqualTo("quarantined");
        }
        assertThat(pipeline.settlements()).as("every message settled exactly once").isEqualTo(batch.sent());
        assertThat(BrokerScenarios.openAttempts(pipeline, "outage")).as("attempts left open").isZero();
        batch.assertEachRecordedOnce(pipeline);
        for (String docId : batch.bad().values()) {
            QuarantineRecord r = pipeline.store().find("outage", docId).orElseThrow();
            assertThat(r.attempts()).as("attempts of %s", docId).isEqualTo(1);
        }
        Awaitility.await("health UP").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            Actuator.HealthReport health = actuator.health();
            assertThat(health.status("database")).isEqualTo("UP");
            assertThat(health.code()).as(health.body().toString()).isEqualTo(200);
        });
    }
}
