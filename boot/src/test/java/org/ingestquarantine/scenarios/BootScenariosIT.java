package org.ingestquarantine.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.boot.BootRun;
import org.ingestquarantine.broker.sqs.EmbeddedSqsServer;
import org.ingestquarantine.broker.sqs.SqsQueues;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Ensures the Boot application processes the same mixed batch on every profile (the embedded default, SQS on an
 * ElasticMQ of its own, RabbitMQ configured with {@code spring.rabbitmq.*} keys, Kafka), with the main suite's
 * brokers: each good document indexed once and delivered once, each bad one quarantined once as permanent_input
 * after one attempt, counted in the tables and at the broker (its dead letters only the copies its fixture keeps).
 */
class BootScenariosIT {

    /** The source of the batch: one the test properties configure. */
    private static final String SOURCE = "it";

    @TempDir
    Path data;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"embedded", "sqs", "rabbitmq", "kafka"})
    void shouldIndexTheGoodAndQuarantineTheBadOnceEach(String profile) throws Exception {
        EmbeddedSqsServer ownSqs = null;
        try (BrokerFixture fixture = fixture(profile)) {
            Map<String, String> p = new HashMap<>(fixture.start());
            p.putAll(TestPipeline.testProperties());
            p.put("iq.data-dir", data.resolve("app").toString());
            if (profile.equals("sqs")) {
                // the production SQS profile on an ElasticMQ the test runs, as an operator's SQS would be
                ownSqs = EmbeddedSqsServer.start(Integer.parseInt(p.get("sqs.port")), data.resolve("sqs"));
                try (SqsClient sqs = SqsClient.builder().region(Region.US_EAST_1).endpointOverride(ownSqs.endpoint())
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")))
                        .build()) {
                    SqsQueues.create(sqs, Path.of("broker-configs", "sqs"), "ingest");
                }
                p.putAll(fixture.externalConsumerProperties());
                // the AWS SDK's default chain reads them as system properties
                System.setProperty("aws.accessKeyId", p.remove("aws.accessKeyId"));
                System.setProperty("aws.secretAccessKey", p.remove("aws.secretAccessKey"));
            }
            if (profile.equals("rabbitmq")) {
                p.remove("rabbitmq.uri");
                p.putAll(springRabbitMq(URI.create(((RabbitMqFixture) fixture).broker().amqpUri())));
            }
            try (BootRun run = BootRun.start(profile, p)) {
                TestPipeline pipeline = TestPipeline.attach(run.camel(), fixture);
                BrokerScenarios.Batch batch = BrokerScenarios.Batch.publish(pipeline, SOURCE);
                Awaitility.await("the batch settled").atMost(BrokerScenarios.WAIT).pollInterval(Duration.ofMillis(200))
                        .until(() -> batch.settled(pipeline) >= batch.sent());

                batch.assertEachRecordedOnce(pipeline);
                assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM documents WHERE source = ?", SOURCE))
                        .as("indexed").isEqualTo(BrokerScenarios.Batch.GOOD);
                assertThat(BrokerScenarios.quarantineRows(pipeline, SOURCE)).as("quarantined")
                        .isEqualTo(BrokerScenarios.Batch.BAD.size());
                for (String key : batch.good().keySet()) {
                    assertThat(pipeline.outcomeOf(key)).as(batch.good().get(key)).isEqualTo("indexed");
                    assertThat(pipeline.deliveries(key)).as("deliveries of %s", batch.good().get(key)).isEqualTo(1);
                }
                for (String docId : batch.bad().values()) {
                    QuarantineRecord r = pipeline.store().find(SOURCE, docId).orElseThrow();
                    assertThat(r.errorClass()).as(docId).isEqualTo(ErrorClass.PERMANENT_INPUT);
                    assertThat(r.attempts()).as("attempts of %s", docId).isEqualTo(1);
                }
                assertThat(BrokerScenarios.openAttempts(pipeline, SOURCE)).as("attempts left open").isZero();
                assertThat(run.actuator().health().status("broker")).isEqualTo("UP");
            }
        } finally {
            if (ownSqs != null) {
                ownSqs.close();
            }
        }
    }

    private static BrokerFixture fixture(String profile) {
        return switch (profile) {
            case "embedded", "sqs" -> new SqsFixture();
            case "rabbitmq" -> new RabbitMqFixture();
            case "kafka" -> new KafkaFixture();
            default -> throw new IllegalArgumentException(profile);
        };
    }

    /** @return Boot's own keys for the broker at {@code amqp}: what a Boot user sets instead of rabbitmq.uri */
    private static Map<String, String> springRabbitMq(URI amqp) {
        String[] user = amqp.getUserInfo().split(":", 2);
        return Map.of("spring.rabbitmq.host", amqp.getHost(), "spring.rabbitmq.port", Integer.toString(amqp.getPort()),
                "spring.rabbitmq.username", user[0], "spring.rabbitmq.password", user[1],
                "spring.rabbitmq.virtual-host", "/");
    }
}
