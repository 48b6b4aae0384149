package org.ingestquarantine.boot;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.ingestquarantine.broker.rabbitmq.RabbitMqWiring;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Health of the connection to the profile's broker ({@code broker.kind}), asked through the clients the wiring
 * made: SQS reads the ingest queue's attributes (detail: messages waiting), RabbitMQ opens (or reuses) the
 * consumers' connection, Kafka describes the cluster (detail: brokers). DOWN when the broker does not answer
 * within {@link #TIMEOUT}.
 */
final class BrokerHealth implements HealthIndicator, DisposableBean {

    /** How long one check waits for the broker. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final PipelineBeans beans;
    private Admin kafkaAdmin;

    BrokerHealth(PipelineBeans beans) {
        this.beans = beans;
    }

    @Override
    public Health health() {
        String kind = beans.property("broker.kind").orElse("");
        Health.Builder health = Health.unknown();
        try {
            health = switch (kind) {
                case "sqs" -> sqs();
                case "rabbitmq" -> rabbitMq();
                case "kafka" -> kafka();
                default -> Health.unknown().withDetail("reason", "broker.kind=" + kind + " is unknown");
            };
        } catch (Exception e) {
            health = Health.down().withDetail("error", e.getClass().getSimpleName());
        }
        return health.withDetail("kind", kind).build();
    }

    private Health.Builder sqs() {
        SqsClient sqs = beans.find("sqsClient", SqsClient.class).orElse(null);
        String url = beans.find("ingestQueueUrl", String.class).orElse(null);
        if (sqs == null || url == null) {
            return Health.unknown().withDetail("reason", "not wired yet");
        }
        String waiting = sqs.getQueueAttributes(b -> b.queueUrl(url)
                .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)).attributes()
                .get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES);
        return Health.up().withDetail("messagesWaiting", Long.parseLong(waiting));
    }

    private Health.Builder rabbitMq() {
        ConnectionFactory factory = beans.find(RabbitMqWiring.CONNECTION_FACTORY, ConnectionFactory.class).orElse(null);
        if (factory == null) {
            return Health.unknown().withDetail("reason", "not wired yet");
        }
        try (Connection connection = factory.createConnection()) {
            return connection.isOpen() ? Health.up() : Health.down().withDetail("reason", "connection closed");
        }
    }

    private synchronized Health.Builder kafka() throws Exception {
        if (kafkaAdmin == null) {
            kafkaAdmin = Admin.create(Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, beans.property("kafka.bootstrap-servers").orElseThrow(),
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis(),
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis()));
        }
        int brokers = kafkaAdmin.describeCluster().nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).size();
        return brokers > 0 ? Health.up().withDetail("brokers", brokers) : Health.down().withDetail("brokers", 0);
    }

    @Override
    public synchronized void destroy() {
        if (kafkaAdmin != null) {
            kafkaAdmin.close(TIMEOUT);
        }
    }
}
