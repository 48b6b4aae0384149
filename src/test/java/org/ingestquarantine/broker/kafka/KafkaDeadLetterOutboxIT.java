package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.ingestquarantine.testsupport.KafkaKraftBroker;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures a dead-letter copy in the outbox while Kafka is away is kept in PostgreSQL, the consumer thread not
 * waiting for Kafka, and sent, byte for byte (binary key and value), once Kafka is back; and that a copy Kafka
 * acknowledged just as PostgreSQL went away (the row's delete lost) is not sent again once it answers.
 */
class KafkaDeadLetterOutboxIT extends PostgresTestBase {

    private static final String DLQ = "ingest.dlq";

    @Test
    void shouldKeepACopyWhileKafkaIsAwayAndSendItWhenKafkaReturns() throws Exception {
        try (KafkaKraftBroker kafka = KafkaKraftBroker.start()) {
            kafka.createTopic(DLQ, 1, Map.of());
            try (Producer<byte[], byte[]> producer = producer(kafka);
                 KafkaDeadLetterOutbox outbox = new KafkaDeadLetterOutbox(dataSource(), producer, Duration.ofSeconds(5),
                         Duration.ofMillis(500))) {
                kafka.kill();
                byte[] key = {(byte) 0xff, 0x00, (byte) 0xc3};
                byte[] value = {(byte) 0xfe, (byte) 0xff, 0x00, 0x7b, (byte) 0x80};
                // as the quarantine record's statement writes it (KafkaDeadLetterCopyIT)
                new JdbcTemplate(dataSource()).update("INSERT INTO kafka_dlq_outbox (topic, record_key, record_value, headers,"
                        + " created_at) VALUES (?, ?, ?, CAST(? AS jsonb), now())", DLQ, key, value,
                        "{\"" + KafkaDeadLetters.DLQ_ID + "\": \"01TEST\"}");
                long t0 = System.nanoTime();
                outbox.wake();
                assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("waking the sender does not wait for Kafka")
                        .isLessThan(Duration.ofSeconds(1));
                Thread.sleep(2_000);
                assertThat(outbox.pending()).as("kept while Kafka is away").isEqualTo(1);

                kafka.restart();

                Awaitility.await("sent after Kafka returned").atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(500)).until(() -> outbox.pending() == 0);
                List<ConsumerRecord<byte[], byte[]>> copies = read(kafka, 1);
                assertThat(copies).singleElement().satisfies(r -> {
                    assertThat(r.key()).isEqualTo(key);
                    assertThat(r.value()).isEqualTo(value);
                    assertThat(new String(r.headers().lastHeader(KafkaDeadLetters.DLQ_ID).value(), StandardCharsets.UTF_8))
                            .isEqualTo("01TEST");
                });
            }
        }
    }

    @Test
    void shouldNotSendACopyAgainWhenTheDatabaseWentAwayAfterKafkaAcknowledgedIt() throws Exception {
        try (KafkaKraftBroker kafka = KafkaKraftBroker.start()) {
            kafka.createTopic(DLQ, 1, Map.of());
            JdbcTemplate jdbc = new JdbcTemplate(dataSource());
            jdbc.update("TRUNCATE kafka_dlq_outbox");
            jdbc.update("INSERT INTO kafka_dlq_outbox (topic, record_key, record_value, headers, created_at)"
                    + " VALUES (?, NULL, ?, CAST(? AS jsonb), now())", DLQ, new byte[] {1, 2, 3},
                    "{\"" + KafkaDeadLetters.DLQ_ID + "\": \"01ONCE\"}");
            AtomicBoolean stopped = new AtomicBoolean();
            try (Producer<byte[], byte[]> producer = producer(kafka);
                 KafkaDeadLetterOutbox outbox = new KafkaDeadLetterOutbox(dataSource(),
                         stopsTheDatabaseAfterTheFirstAck(producer, stopped), Duration.ofSeconds(5), Duration.ofMillis(500))) {
                outbox.wake();
                Awaitility.await("the database stopped after Kafka's ack").atMost(Duration.ofSeconds(60))
                        .untilTrue(stopped);
                Thread.sleep(2_000);
                postgres.start();

                Awaitility.await("the row deleted once the database answers").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500)).until(() -> outbox.pending() == 0);
                assertThat(read(kafka, 2)).as("copies in %s", DLQ).hasSize(1);
            }
        }
    }

    /** @return {@code producer}, whose first send, once Kafka acknowledged it, stops PostgreSQL before returning */
    @SuppressWarnings("unchecked")
    private static Producer<byte[], byte[]> stopsTheDatabaseAfterTheFirstAck(Producer<byte[], byte[]> producer,
                                                                            AtomicBoolean stopped) {
        return (Producer<byte[], byte[]>) Proxy.newProxyInstance(Producer.class.getClassLoader(),
                new Class<?>[] {Producer.class}, (proxy, method, args) -> {
                    Object result = method.invoke(producer, args);
                    if (method.getName().equals("send") && !stopped.get()) {
                        ((Future<?>) result).get();
                        postgres.stop();
                        stopped.set(true);
                    }
                    return result;
                });
    }

    private static Producer<byte[], byte[]> producer(KafkaKraftBroker kafka) {
        return new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static List<ConsumerRecord<byte[], byte[]>> read(KafkaKraftBroker kafka, int expected) {
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(), ConsumerConfig.GROUP_ID_CONFIG, "outbox-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(DLQ));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (got.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(got::add);
            }
        }
        return got;
    }
}
