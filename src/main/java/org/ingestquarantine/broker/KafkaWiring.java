package org.ingestquarantine.broker;

import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import org.apache.camel.spi.Registry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringSerializer;
import org.ingestquarantine.app.AppSettings;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * The {@code kafka} profile's beans: the broker adapter, the ingest publisher (bean
 * {@code ingestPublisher}) and the dead-letter copy, on one producer and one admin client.
 * The consumer itself is the route's {@code ingest.from-uri} (application-kafka.properties).
 *
 * <p>Properties: {@code kafka.bootstrap-servers} (default {@value #DEFAULT_BOOTSTRAP_SERVERS}),
 * {@code kafka.topic} (default {@value #DEFAULT_TOPIC}), {@code kafka.dlq-topic} (default
 * {@code <topic>.dlq}), {@code kafka.group-id} (default {@value #DEFAULT_GROUP_ID}),
 * {@code kafka.send-timeout-ms} (one publish, dead-letter copy or lag query; default
 * {@value #DEFAULT_SEND_TIMEOUT_MS}), {@code kafka.release-max-wait-ms} (default
 * {@value KafkaBrokerAdapter#DEFAULT_MAX_RELEASE_WAIT_MS}, see {@link KafkaBrokerAdapter}). The topics are
 * not created here: {@code broker-configs/kafka/start-local} (or the operator) creates them from
 * {@code broker-configs/kafka/*.properties}.
 */
public final class KafkaWiring {

    /** Default {@code kafka.bootstrap-servers}. */
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";
    /** Default {@code kafka.topic}. */
    public static final String DEFAULT_TOPIC = "ingest";
    /** Default {@code kafka.group-id}. */
    public static final String DEFAULT_GROUP_ID = "ingest-quarantine";
    /** Default {@code kafka.send-timeout-ms}, milliseconds. */
    public static final long DEFAULT_SEND_TIMEOUT_MS = 30_000;

    private KafkaWiring() {
    }

    /**
     * @param settings the application's properties
     * @param registry where {@code ingestPublisher} is bound
     * @param started clients to close when the context stops
     * @param journal the attempt journal, Kafka's only delivery counter
     * @return the broker adapter
     */
    public static BrokerAdapter open(AppSettings settings, Registry registry, Deque<AutoCloseable> started,
                                     AttemptJournal journal) {
        String bootstrap = settings.string("kafka.bootstrap-servers", DEFAULT_BOOTSTRAP_SERVERS);
        String topic = settings.string("kafka.topic", DEFAULT_TOPIC);
        String groupId = settings.string("kafka.group-id", DEFAULT_GROUP_ID);
        Duration timeout = settings.millis("kafka.send-timeout-ms", Duration.ofMillis(DEFAULT_SEND_TIMEOUT_MS));
        Producer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000),
                ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis()),
                new StringSerializer(), new StringSerializer());
        started.push(producer);
        Admin admin = Admin.create(Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis()));
        started.push(admin);
        registry.bind("ingestPublisher", new KafkaIngestPublisher(producer, admin, topic, groupId, timeout));
        KafkaDeadLetters deadLetters = new KafkaDeadLetters(producer, settings.string("kafka.dlq-topic", topic + ".dlq"),
                () -> registry.lookupByNameAndType("quarantineStore", QuarantineStore.class), timeout);
        return new KafkaBrokerAdapter(journal, deadLetters, settings.millis("kafka.release-max-wait-ms",
                Duration.ofMillis(KafkaBrokerAdapter.DEFAULT_MAX_RELEASE_WAIT_MS)));
    }
}
