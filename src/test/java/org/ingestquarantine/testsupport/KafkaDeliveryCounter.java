package org.ingestquarantine.testsupport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.ingestquarantine.broker.kafka.KafkaBrokerAdapter;

/**
 * Counts deliveries from OUTSIDE the pipeline: a Kafka {@link ConsumerInterceptor} installed in the
 * application's consumer client ({@code interceptorClasses}), which the Kafka client calls inside
 * {@code poll()} with every record it is about to hand over, before camel-kafka or any route sees it.
 * Neither the routes nor the attempt journal can influence this count; the application runs with
 * {@code maxPollRecords=1}, so every record handed over is also processed before the next poll.
 *
 * <p>Kafka instantiates the class itself, so counts live in a static map, separated per broker by the
 * consumer's {@code bootstrap.servers} (each test broker has its own port).
 */
public final class KafkaDeliveryCounter implements ConsumerInterceptor<Object, Object> {

    private static final Map<String, Map<String, AtomicInteger>> COUNTS = new ConcurrentHashMap<>();

    private Map<String, AtomicInteger> counts;

    /**
     * @param bootstrapServers the broker's {@code bootstrap.servers}
     * @param deliveryKey {@code kafka:<topic>/<partition>/<offset>@<topic id>}; counted by position (a client
     *     interceptor does not see topic ids), so within one broker's lifetime a topic must not be re-created
     * @return how many times a consumer of that broker was handed the record
     */
    public static int deliveries(String bootstrapServers, String deliveryKey) {
        int at = deliveryKey.lastIndexOf('@');
        String position = at < 0 ? deliveryKey : deliveryKey.substring(0, at);
        AtomicInteger n = COUNTS.getOrDefault(bootstrapServers, Map.of()).get(position);
        return n == null ? 0 : n.get();
    }

    /**
     * @param bootstrapServers the broker's {@code bootstrap.servers}
     * @return records handed over so far, all keys together
     */
    public static int total(String bootstrapServers) {
        return COUNTS.getOrDefault(bootstrapServers, Map.of()).values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Override
    public void configure(Map<String, ?> configs) {
        Object servers = configs.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
        String key = servers instanceof Iterable<?> list ? String.join(",", (Iterable<String>) list) : String.valueOf(servers);
        counts = COUNTS.computeIfAbsent(key, k -> new ConcurrentHashMap<>());
    }

    @Override
    public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
        for (ConsumerRecord<Object, Object> r : records) {
            counts.computeIfAbsent(KafkaBrokerAdapter.position(r.topic(), r.partition(), r.offset()), k -> new AtomicInteger())
                    .incrementAndGet();
        }
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    }

    @Override
    public void close() {
    }
}
