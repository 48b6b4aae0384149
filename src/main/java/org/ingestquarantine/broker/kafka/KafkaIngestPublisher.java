package org.ingestquarantine.broker.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.pipeline.IngestMessage;

/**
 * Produces ingest messages to the ingest topic, keyed by {@code doc_id} so that every message about one
 * document lands on one partition, in order. Each send waits for the broker's acknowledgement (at most
 * {@code timeout}) and returns the delivery key the consumer will see, from the record's metadata.
 * {@link #pending()} is the consumer group's lag: end offsets minus the group's committed offsets (the
 * earliest offset where the group has committed nothing yet), summed over the topic's partitions.
 */
public final class KafkaIngestPublisher implements IngestPublisher {

    private final Producer<byte[], byte[]> producer;
    private final Admin admin;
    private final String topic;
    private final String groupId;
    private final Duration timeout;
    private final KafkaTopicIds topicIds;

    /**
     * @param producer a producer of raw bytes (text is sent as UTF-8); the caller closes it
     * @param admin an admin client for the lag; the caller closes it
     * @param topic the ingest topic
     * @param groupId the consumer's group id
     * @param timeout how long one send or one lag query may take
     * @param topicIds the topics' ids, for the delivery keys
     */
    KafkaIngestPublisher(Producer<byte[], byte[]> producer, Admin admin, String topic, String groupId,
                         Duration timeout, KafkaTopicIds topicIds) {
        this.producer = producer;
        this.admin = admin;
        this.topic = topic;
        this.groupId = groupId;
        this.timeout = timeout;
        this.topicIds = topicIds;
    }

    @Override
    public String publish(IngestMessage message) {
        return send(message.docId(), message.toJson());
    }

    /** Publishes with no key: the producer picks the partition. */
    @Override
    public String publishRaw(String body) {
        return send(null, body);
    }

    private String send(String key, String body) {
        try {
            RecordMetadata m = producer.send(new ProducerRecord<>(topic, utf8(key), utf8(body)))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return KafkaBrokerAdapter.key(m.topic(), m.partition(), m.offset(), topicIds.of(m.topic()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while publishing to " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new KafkaException("could not publish to topic " + topic + " within " + timeout.toMillis()
                    + " ms; check that the broker answers and the topic exists (broker-configs/kafka/start-local)", e);
        }
    }

    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public long pending() {
        try {
            List<TopicPartition> partitions = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            Map<TopicPartition, Long> end = offsets(partitions, OffsetSpec.latest());
            Map<TopicPartition, Long> start = offsets(partitions, OffsetSpec.earliest());
            long pending = 0;
            for (TopicPartition tp : partitions) {
                OffsetAndMetadata c = committed.get(tp);
                pending += end.get(tp) - (c == null ? start.get(tp) : c.offset());
            }
            return pending;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            return -1;
        }
    }

    private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetSpec> request = partitions.stream().collect(Collectors.toMap(p -> p, p -> spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> result = admin.listOffsets(request).all()
                .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        result.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }
}
