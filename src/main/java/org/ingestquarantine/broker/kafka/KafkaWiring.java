package org.ingestquarantine.broker.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.pipeline.Settings;

/**
 * The {@code kafka} profile's beans: the broker adapter, the ingest publisher (bean
 * {@code ingestPublisher}) and the dead-letter copy, on one producer and one admin client, and the
 * consumer's client factory ({@link KafkaKeepAlive}, bean {@value KafkaKeepAlive#BEAN}), which keeps a consumer
 * polling every {@code delivery.heartbeat-interval-ms} while its thread works on a document.
 * The consumer itself is the route's {@code ingest.from-uri} (application-kafka.properties).
 *
 * <p>Properties, all in application-kafka.properties with their units: {@code kafka.bootstrap-servers},
 * {@code kafka.topic}, {@code kafka.dlq-topic}, {@code kafka.group-id}, {@code kafka.send-timeout-ms} (one
 * publish, dead-letter copy or lag query), {@code kafka.dlq-outbox-poll-ms} (see {@link KafkaDeadLetterOutbox}) and {@code kafka.release-max-wait-ms} (see
 * {@link KafkaBrokerAdapter}). The topics are not created here: {@code broker-configs/kafka/start-local}
 * (or the operator) creates them from {@code broker-configs/kafka/*.properties}.
 */
public final class KafkaWiring implements BrokerWiring {

    @Override
    public BrokerAdapter open(BrokerSetup setup) {
        Settings settings = setup.settings();
        String bootstrap = settings.required("kafka.bootstrap-servers");
        String topic = settings.required("kafka.topic");
        String groupId = settings.required("kafka.group-id");
        Duration timeout = settings.requiredMillis("kafka.send-timeout-ms");
        Producer<byte[], byte[]> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000),
                ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout.toMillis()),
                new ByteArraySerializer(), new ByteArraySerializer());
        setup.closeOnStop().accept(producer);
        Admin admin = Admin.create(Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis()));
        setup.closeOnStop().accept(admin);
        KafkaTopicIds topicIds = new KafkaTopicIds(admin, timeout);
        setup.registry().bind("ingestPublisher", new KafkaIngestPublisher(producer, admin, topic, groupId, timeout, topicIds));
        KafkaKeepAlive keepAlive = new KafkaKeepAlive(settings.requiredMillis("delivery.heartbeat-interval-ms"));
        setup.closeOnStop().accept(keepAlive);
        setup.registry().bind(KafkaKeepAlive.BEAN, keepAlive);
        KafkaDeadLetterOutbox outbox = new KafkaDeadLetterOutbox(setup.dataSource(), producer, timeout,
                settings.requiredMillis("kafka.dlq-outbox-poll-ms"));
        setup.closeOnStop().accept(outbox);
        KafkaDeadLetters deadLetters = new KafkaDeadLetters(outbox, settings.required("kafka.dlq-topic"));
        return new KafkaBrokerAdapter(setup.journal(), topicIds, deadLetters, settings.requiredMillis("kafka.release-max-wait-ms"),
                setup.inFlight());
    }
}
