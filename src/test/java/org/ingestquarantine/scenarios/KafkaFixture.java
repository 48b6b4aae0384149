package org.ingestquarantine.scenarios;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.camel.component.kafka.serde.ToStringKafkaHeaderDeserializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.ingestquarantine.testsupport.KafkaDeliveryCounter;
import org.ingestquarantine.testsupport.KafkaKraftBroker;
import org.ingestquarantine.testsupport.KafkaTopicSpec;

/**
 * Kafka through the {@code kafka} profile: a real KRaft broker ({@link KafkaKraftBroker}) with the topics
 * of {@code broker-configs/kafka}, deliveries counted by {@link KafkaDeliveryCounter} inside the
 * application's consumer client, outside the routes.
 */
public final class KafkaFixture implements BrokerFixture {

    /** The ingest topic, as in broker-configs/kafka/ingest.properties. */
    public static final String TOPIC = "ingest";
    /** The dead-letter topic, as in broker-configs/kafka/ingest.dlq.properties. */
    public static final String DLQ_TOPIC = "ingest.dlq";

    /** The external consumer's session timeout, ms: the broker's smallest (group.min.session.timeout.ms). */
    static final int EXTERNAL_SESSION_TIMEOUT_MS = 6000;

    private final Integer ingestPartitions;
    private KafkaKraftBroker kafka;

    /** The ingest topic with the partitions of its topic file. */
    public KafkaFixture() {
        this(null);
    }

    /**
     * @param ingestPartitions partitions of the ingest topic instead of its file's (1: one total order),
     *     or null for the file's
     */
    public KafkaFixture(Integer ingestPartitions) {
        this.ingestPartitions = ingestPartitions;
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String profile() {
        return "kafka";
    }

    @Override
    public Map<String, String> start() {
        kafka = KafkaKraftBroker.start();
        KafkaTopicSpec ingest = KafkaTopicSpec.forTopic(TOPIC);
        kafka.createTopic(ingest.name(), ingestPartitions == null ? ingest.partitions() : ingestPartitions, ingest.configs());
        kafka.createTopic(KafkaTopicSpec.forTopic(DLQ_TOPIC));
        Map<String, String> p = new HashMap<>();
        p.put("kafka.bootstrap-servers", kafka.bootstrapServers());
        p.put("kafka.consumer-interceptors", KafkaDeliveryCounter.class.getName());
        return p;
    }

    /**
     * The profile's consumer URI with a session timeout of {@value #EXTERNAL_SESSION_TIMEOUT_MS} ms: a killed
     * consumer never leaves its group, so its partitions go to the next one only when its session expires.
     */
    @Override
    public Map<String, String> externalConsumerProperties() throws IOException {
        Properties profile = new Properties();
        try (InputStream in = KafkaFixture.class.getResourceAsStream("/application-kafka.properties")) {
            profile.load(in);
        }
        return Map.of("kafka.bootstrap-servers", kafka.bootstrapServers(),
                "ingest.from-uri", profile.getProperty("ingest.from-uri")
                        + "&sessionTimeoutMs=" + EXTERNAL_SESSION_TIMEOUT_MS + "&heartbeatIntervalMs=1000");
    }

    /** @return the running broker */
    public KafkaKraftBroker broker() {
        return kafka;
    }

    @Override
    public int deliveries(String deliveryKey) {
        return KafkaDeliveryCounter.deliveries(kafka.bootstrapServers(), deliveryKey);
    }

    @Override
    public boolean copiesQuarantinedToDeadLetters() {
        return true;
    }

    @Override
    public long deadLettered() throws Exception {
        try (Admin admin = kafka.admin()) {
            TopicPartition tp = new TopicPartition(DLQ_TOPIC, 0);
            long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get(10, TimeUnit.SECONDS).get(tp).offset();
            long start = admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get(10, TimeUnit.SECONDS).get(tp).offset();
            return end - start;
        }
    }

    /**
     * Reads the dead-letter topic from the beginning with a fresh group, header values through camel-kafka's
     * {@link ToStringKafkaHeaderDeserializer}.
     *
     * @param expected how many records to wait for (at most 30 s)
     * @return each record's headers as strings, plus its value under the key {@code value}
     */
    public List<Map<String, String>> deadLetters(int expected) {
        ToStringKafkaHeaderDeserializer strings = new ToStringKafkaHeaderDeserializer();
        List<Map<String, String>> got = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "dlq-reader-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(DLQ_TOPIC));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (got.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    Map<String, String> m = new HashMap<>();
                    for (Header h : r.headers()) {
                        m.put(h.key(), (String) strings.deserialize(h.key(), h.value()));
                    }
                    m.put("value", r.value());
                    got.add(m);
                }
            }
        }
        return got;
    }

    /**
     * Reads the dead-letter topic from the beginning with a fresh group, keys and values as raw bytes.
     *
     * @param expected how many records to wait for (at most 30 s)
     * @return the records, in offset order
     */
    public List<ConsumerRecord<byte[], byte[]>> deadLetterRecords(int expected) {
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "dlq-reader-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(DLQ_TOPIC));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (got.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(got::add);
            }
        }
        return got;
    }

    @Override
    public void close() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Override
    public String toString() {
        return "kafka" + (ingestPartitions == null ? "" : " (" + ingestPartitions + " partition(s))");
    }
}
