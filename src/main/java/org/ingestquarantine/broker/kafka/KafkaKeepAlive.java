package org.ingestquarantine.broker.kafka;

import java.time.Duration;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.camel.component.kafka.DefaultKafkaClientFactory;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The ingest consumer's Kafka client factory (endpoint option {@code kafkaClientFactory=#kafkaKeepAlive}):
 * hands camel-kafka {@link KeepAliveConsumer}s' consumers and, every heartbeat interval, lets each one whose thread is
 * busy with a record poll with its partitions paused. So one document may take longer than
 * {@code max.poll.interval.ms} without its consumer leaving the group: it is processed once, its partition
 * is not handed to another consumer meanwhile, and the records behind it follow. The interval is
 * {@code delivery.heartbeat-interval-ms}, which must stay well under {@code max.poll.interval.ms}. Each
 * consumer also reads a record whose offset it has not committed again at its next poll (see
 * {@link KeepAliveConsumer}), which needs the endpoint's {@code maxPollRecords=1}.
 */
public final class KafkaKeepAlive extends DefaultKafkaClientFactory implements AutoCloseable {

    /** Registry name of the factory, as the consumer URI names it. */
    public static final String BEAN = "kafkaKeepAlive";

    private final Set<KeepAliveConsumer<?, ?>> consumers = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;

    /**
     * @param interval how often a busy consumer polls (and how long it may go without a poll first)
     * @throws IllegalArgumentException if it is not positive
     */
    public KafkaKeepAlive(Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("the keep-alive interval must be positive, was " + interval);
        }
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kafka-keep-alive");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(() -> beat(interval), interval.toMillis(), interval.toMillis() / 2 + 1,
                TimeUnit.MILLISECONDS);
    }

    /**
     * @throws IllegalArgumentException if {@code max.poll.records} is not 1: a consumer that reads a failed
     *     record again must not be handed the records behind it in the same poll
     */
    @Override
    public Consumer getConsumer(Properties props) {
        Object maxPollRecords = props.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG);
        if (maxPollRecords == null || !"1".equals(maxPollRecords.toString())) {
            throw new IllegalArgumentException("the ingest consumer needs maxPollRecords=1, was " + maxPollRecords);
        }
        @SuppressWarnings("unchecked")
        KeepAliveConsumer<?, ?> consumer = KeepAliveConsumer.around(super.getConsumer(props));
        consumers.add(consumer);
        return consumer.consumer();
    }

    private void beat(Duration interval) {
        consumers.removeIf(KeepAliveConsumer::retired);
        for (KeepAliveConsumer<?, ?> c : consumers) {
            c.keepAlive(interval);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
