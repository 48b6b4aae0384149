package org.ingestquarantine.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.camel.CamelContext;
import org.flywaydb.core.Flyway;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.scenarios.SqsFixture;
import org.ingestquarantine.testsupport.Scrape;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.autoconfigure.actuate.observability.AutoConfigureObservability;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Ensures the Boot application is wired the Boot way: the pipeline's beans are Spring beans (autowired here, the
 * same objects Camel's registry hands the routes), the DataSource is Boot's HikariCP pool with a
 * {@code spring.datasource.hikari.*} key applied over our bounds, migrated by Boot's Flyway, on the embedded
 * PostgreSQL; one metrics endpoint (Actuator's: no /metrics server bound) and Camel's health in Actuator's.
 */
@SpringBootTest(classes = BootApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("embedded")
@AutoConfigureObservability
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
class BootBeansIT {

    private static final SqsFixture SQS = new SqsFixture();
    /** A Boot key over our pool bound ({@code Database.MAX_POOL_SIZE}). */
    private static final int POOL_SIZE = 3;

    @Autowired
    ApplicationContext spring;

    @Autowired
    CamelContext camel;

    @Autowired
    QuarantineStore store;

    @Autowired
    DocumentIndex index;

    @Autowired
    Database database;

    @Autowired
    DataSource dataSource;

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) throws Exception {
        Map<String, String> p = new HashMap<>(SQS.start());
        p.putAll(TestPipeline.testProperties());
        p.put("iq.data-dir", Files.createTempDirectory("boot-beans").toString());
        p.put("spring.datasource.hikari.maximum-pool-size", Integer.toString(POOL_SIZE));
        p.forEach((key, value) -> registry.add(key, () -> value));
    }

    @AfterAll
    static void closeFixture() {
        SQS.close();
    }

    @Test
    void shouldPublishThePipelinesBeansAsSpringBeansThatCamelHandsTheRoutes() {
        for (String name : new String[] {"quarantineStore", "documentIndex", "brokerAdapter", "consumerCircuitBreaker",
                "documentParser", "failureDisposition", "outcomes", "deliveryGuard", "pipelineMetrics", "parseStage",
                "indexStage", "quarantineRecorder", "database", "dataSource", "embeddedPostgres"}) {
            assertThat(spring.containsBean(name)).as("Spring bean %s", name).isTrue();
            assertThat(spring.getBean(name)).as(name).isSameAs(camel.getRegistry().lookupByName(name));
        }
        assertThat(store).isSameAs(spring.getBean("quarantineStore"));
        assertThat(index).isSameAs(spring.getBean("documentIndex"));
        assertThat(spring.getBeansOfType(BrokerAdapter.class)).hasSize(1);
        assertThat(spring.getBeansOfType(ConsumerCircuitBreaker.class)).hasSize(1);
        assertThat(spring.getBeansOfType(DocumentParser.class)).hasSize(1);
    }

    @Test
    void shouldRunOnBootsDataSourceMigratedByBootsFlywayOnTheEmbeddedPostgres() throws Exception {
        assertThat(dataSource).isInstanceOf(HikariDataSource.class).isSameAs(database.dataSource());
        HikariDataSource pool = (HikariDataSource) dataSource;
        assertThat(pool.getMaximumPoolSize()).as("spring.datasource.hikari.maximum-pool-size").isEqualTo(POOL_SIZE);
        assertThat(pool.getConnectionTimeout()).as("db.connect-timeout-ms").isEqualTo(2000);
        assertThat(pool.getPoolName()).isEqualTo("ingest-db");
        EmbeddedPostgresService postgres = spring.getBean(EmbeddedPostgresService.class);
        assertThat(pool.getJdbcUrl()).isEqualTo(postgres.jdbcUrl());
        Flyway flyway = spring.getBean(Flyway.class);
        assertThat(flyway.info().current()).as("Boot's Flyway migrated the schema").isNotNull();
        assertThat(flyway.info().pending()).isEmpty();
        assertThat(database.isReachable()).isTrue();
    }

    @Test
    void shouldServeOneMetricsEndpointAndCamelsHealthThroughActuator() throws Exception {
        assertThat(camel.getRegistry().lookupByName(AppConfiguration.SCRAPE_URL)).as("the /metrics server").isNull();
        Actuator.HealthReport health = Actuator.onPort(port).health();
        assertThat(health.body().path("components").has("camelHealth")).as(health.body().toString()).isTrue();
        assertThat(health.body().path("components").has("db")).as("Boot's DataSource indicator").isTrue();
        assertThat(Scrape.of(Actuator.onPort(port).prometheus(), Duration.ofSeconds(20)).names())
                .contains("camel_exchanges_total");
    }
}
