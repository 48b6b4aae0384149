package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.ingestquarantine.testsupport.KafkaKraftBroker;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ensures a consumer whose thread holds one record longer than {@code max.poll.interval.ms} stays in its
 * group when {@link KeepAliveConsumer#keepAlive} runs beside it (commits the record, then reads the one
 * behind it), and, as the control, is thrown out of the group without it; and that a record not committed
 * is read again by the same consumer's next poll, in the same group generation. On a real KRaft broker.
 */
class KeepAliveConsumerIT {

    private static final Duration MAX_POLL_INTERVAL = Duration.ofSeconds(6);
    /** Longer than {@link #MAX_POLL_INTERVAL} by a wide margin. */
    private static final Duration WORK = Duration.ofSeconds(14);

    private static KafkaKraftBroker kafka;

    @BeforeAll
    static void startKafka() {
        kafka = KafkaKraftBroker.start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    void shouldKeepASlowConsumerInItsGroupAndHandOverTheRecordBehind() throws Exception {
        String topic = publishTwo("kept");
        KeepAliveConsumer<String, String> keepAlive = KeepAliveConsumer.around(consumer("kept"));
        ScheduledExecutorService beats = Executors.newSingleThreadScheduledExecutor();
        try (Consumer<String, String> consumer = keepAlive.consumer()) {
            ConsumerRecord<String, String> first = firstRecord(consumer, topic);
            int generation = consumer.groupMetadata().generationId();
            beats.scheduleWithFixedDelay(() -> keepAlive.keepAlive(Duration.ofMillis(500)), 250, 250, TimeUnit.MILLISECONDS);
            Thread.sleep(WORK.toMillis());

            consumer.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(first.offset() + 1)));
            assertThat(consumer.groupMetadata().generationId()).as("no rebalance").isEqualTo(generation);
            ConsumerRecords<String, String> next = consumer.poll(Duration.ofSeconds(10));
            assertThat(next.count()).as("the record behind it").isEqualTo(1);
            assertThat(next.iterator().next().offset()).isEqualTo(first.offset() + 1);
        } finally {
            beats.shutdownNow();
        }
    }

    @Test
    void shouldReadAnUncommittedRecordAgainOnTheSameConsumerAndThenTheOneBehind() throws Exception {
        String topic = publishTwo("rewound");
        TopicPartition partition = new TopicPartition(topic, 0);
        try (Consumer<String, String> consumer = KeepAliveConsumer.around(consumer("rewound")).consumer()) {
            ConsumerRecord<String, String> first = firstRecord(consumer, topic);
            int generation = consumer.groupMetadata().generationId();

            ConsumerRecord<String, String> again = nextRecord(consumer);
            assertThat(again.offset()).as("not committed: read again").isEqualTo(first.offset());
            assertThat(again.value()).isEqualTo("slow");
            consumer.commitSync(Map.of(partition, new OffsetAndMetadata(again.offset() + 1)), Duration.ofSeconds(10));

            ConsumerRecord<String, String> behind = nextRecord(consumer);
            assertThat(behind.offset()).as("committed: the record behind it").isEqualTo(first.offset() + 1);
            assertThat(consumer.groupMetadata().generationId()).as("no rebalance").isEqualTo(generation);
        }
    }

    /**
     * A commit the group refuses while it rebalances (another member joins while this one reads and commits
     * record after record, as the ingest consumer does) is kept and made after the next poll: no settled record
     * is read again (before: the refusal reached the caller and the partition was rewound, so the record was
     * processed again on every poll of the rebalance).
     */
    @Test
    void shouldCommitSettledRecordsThroughARebalanceWithoutReadingOneAgain() throws Exception {
        String topic = "refused";
        kafka.createTopic(topic, 1, Map.of());
        int total = 400;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < total; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
            }
            producer.flush();
        }
        TopicPartition partition = new TopicPartition(topic, 0);
        ScheduledExecutorService joiner = Executors.newSingleThreadScheduledExecutor();
        Consumer<String, String> second = consumer("refused");
        try (Consumer<String, String> consumer = KeepAliveConsumer.around(consumer("refused")).consumer()) {
            ConsumerRecord<String, String> record = firstRecord(consumer, topic);
            java.util.List<Long> seen = new java.util.ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (record != null && System.nanoTime() < deadline) {
                seen.add(record.offset());
                if (seen.size() == 20) {
                    // a second member joins and keeps polling on its own thread: the group rebalances
                    joiner.submit(() -> second.subscribe(List.of(topic))).get();
                    joiner.scheduleWithFixedDelay(() -> second.poll(Duration.ofMillis(100)), 0, 20, TimeUnit.MILLISECONDS);
                }
                consumer.commitSync(Map.of(partition, new OffsetAndMetadata(record.offset() + 1)), Duration.ofSeconds(10));
                Thread.sleep(2);
                ConsumerRecords<String, String> next = consumer.poll(Duration.ofSeconds(2));
                record = next.isEmpty() ? null : next.iterator().next();
            }
            assertThat(seen).as("every record once, in order").doesNotHaveDuplicates().hasSize(total);
            assertThat(consumer.committed(java.util.Set.of(partition)).get(partition).offset()).isEqualTo(total);
        } finally {
            joiner.shutdownNow();
            joiner.awaitTermination(10, TimeUnit.SECONDS);
            second.close(Duration.ofSeconds(5));
        }
    }

    @Test
    void shouldLoseTheGroupWithoutKeepAlive() throws Exception {
        String topic = publishTwo("lost");
        try (Consumer<String, String> consumer = consumer("lost")) {
            ConsumerRecord<String, String> first = firstRecord(consumer, topic);
            Thread.sleep(WORK.toMillis());

            assertThatThrownBy(() -> consumer.commitSync(Map.of(new TopicPartition(topic, 0),
                    new OffsetAndMetadata(first.offset() + 1)))).isInstanceOf(CommitFailedException.class);
        }
    }

    private static String publishTwo(String topic) throws Exception {
        kafka.createTopic(topic, 1, Map.of());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "a", "slow")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>(topic, "b", "behind")).get(30, TimeUnit.SECONDS);
        }
        return topic;
    }

    private static Consumer<String, String> consumer(String group) {
        return new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1,
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) MAX_POLL_INTERVAL.toMillis(),
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6000,
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1000,
                ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                org.apache.kafka.clients.consumer.CooperativeStickyAssignor.class.getName()), new StringDeserializer(), new StringDeserializer());
    }

    private static ConsumerRecord<String, String> nextRecord(Consumer<String, String> consumer) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofSeconds(10));
        assertThat(records.count()).as("one record per poll").isEqualTo(1);
        return records.iterator().next();
    }

    private static ConsumerRecord<String, String> firstRecord(Consumer<String, String> consumer, String topic) {
        consumer.subscribe(List.of(topic));
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(500));
            if (!records.isEmpty()) {
                return records.iterator().next();
            }
        }
        throw new AssertionError("no record within 60 s");
    }
}
