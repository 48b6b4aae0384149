package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** Ensures the KRaft child broker starts, carries records, applies topic files, and survives kill -9. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaKraftBrokerIT {
    private static KafkaKraftBroker kafka;

    @BeforeAll
    static void startBroker() {
        long t0 = System.nanoTime();
        kafka = KafkaKraftBroker.start();
        System.out.printf("KafkaKraftBroker started in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @AfterAll
    static void stopBroker() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    @Order(1)
    void shouldCarryOneRecordFromProducerToConsumer() throws Exception {
        kafka.createTopic("kraft-smoke", 1, Map.of());
        RecordMetadata sent = send("kraft-smoke", "doc-1", "{\"doc_id\":\"doc-1\"}");

        List<ConsumerRecord<String, String>> got = consumeAtLeast("kraft-smoke", 1);

        assertThat(sent.offset()).isZero();
        assertThat(got).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("doc-1");
            assertThat(r.value()).isEqualTo("{\"doc_id\":\"doc-1\"}");
        });
    }

    @Test
    @Order(2)
    void shouldCreateTheTopicsOfBrokerConfigs() throws Exception {
        KafkaTopicSpec ingest = KafkaTopicSpec.forTopic("ingest");
        KafkaTopicSpec dlq = KafkaTopicSpec.forTopic("ingest.dlq");
        kafka.createTopic(ingest);
        kafka.createTopic(dlq);

        try (Admin admin = kafka.admin()) {
            var described = admin.describeTopics(Set.of("ingest", "ingest.dlq")).allTopicNames().get(10, TimeUnit.SECONDS);
            assertThat(described.get("ingest").partitions()).hasSize(ingest.partitions());
            assertThat(described.get("ingest.dlq").partitions()).hasSize(dlq.partitions());
            ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "ingest.dlq");
            Config config = admin.describeConfigs(Set.of(res)).all().get(10, TimeUnit.SECONDS).get(res);
            dlq.configs().forEach((k, v) -> assertThat(config.get(k).value()).as(k).isEqualTo(v));
        }
        assertThat(ingest.configs()).containsEntry("cleanup.policy", "delete");
    }

    @Test
    @Order(3)
    void shouldKeepRecordsAcrossKillAndRestart() throws Exception {
        kafka.createTopic("kraft-crash", 1, Map.of());
        send("kraft-crash", "k", "before-crash");

        kafka.kill();
        assertThat(kafka.isRunning()).isFalse();
        Admin probe = kafka.admin();
        assertThatThrownBy(() -> probe.describeCluster().nodes().get(2, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.TimeoutException.class);
        probe.close(Duration.ZERO);

        long t0 = System.nanoTime();
        kafka.restart();
        System.out.printf("KafkaKraftBroker restarted in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
        send("kraft-crash", "k", "after-restart");
        assertThat(consumeAtLeast("kraft-crash", 2)).extracting(ConsumerRecord::value)
                .containsExactly("before-crash", "after-restart");
    }

    private static RecordMetadata send(String topic, String key, String value) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
            return producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    static List<ConsumerRecord<String, String>> consumeAtLeast(String topic, int count) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "test-" + topic + "-" + System.nanoTime(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
