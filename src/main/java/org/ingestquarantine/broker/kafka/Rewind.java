package org.ingestquarantine.broker.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rewind of {@link KeepAliveConsumer}: a record the owning thread's poll handed out and that no commit has
 * passed by the next poll (its exchange failed: released for redelivery, or its outcome not committed) is sought
 * back to before that poll, so the poll returns it again. The partition never moves past a record whose outcome
 * is not committed, and a redelivery costs no rebalance (camel-kafka's own {@code breakOnFirstError} instead
 * closes the consumer and subscribes a new one, which joins the group again before it fetches: seconds per
 * redelivery, with every partition of that consumer waiting). A partition no longer assigned is not sought: its
 * new owner reads it from the committed offset. An explicit seek by the caller replaces the rewind of that
 * partition. This needs one record per poll ({@code max.poll.records=1}, checked by {@link KafkaKeepAlive}): with
 * more, camel-kafka would go on to the records behind a failed one in the same poll and commit past it.
 *
 * <p>Not thread-safe: used under {@link KeepAliveConsumer}'s lock.
 */
final class Rewind {

    private static final Logger LOG = LoggerFactory.getLogger(Rewind.class);

    /** Per partition, the offset of the first record the owning thread's last poll handed out, until committed past. */
    private final Map<TopicPartition, Long> unsettled = new HashMap<>();

    /** Seeks every partition still assigned back to the first record handed out and not committed past. */
    void seekBack(Consumer<?, ?> consumer) {
        if (unsettled.isEmpty()) {
            return;
        }
        Set<TopicPartition> assigned = consumer.assignment();
        unsettled.forEach((tp, offset) -> {
            if (assigned.contains(tp)) {
                consumer.seek(tp, offset);
                LOG.debug("{} read again from offset {}: not committed", tp, offset);
            }
        });
        unsettled.clear();
    }

    /** @param records what the owning thread's poll hands out: unsettled until a commit passes them */
    void handedOut(ConsumerRecords<?, ?> records) {
        for (TopicPartition tp : records.partitions()) {
            unsettled.put(tp, records.records(tp).get(0).offset());
        }
    }

    /** Forgets the records that a commit of {@code offsets} has passed. */
    void settled(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, committed) -> {
            Long first = unsettled.get(tp);
            if (first != null && committed != null && committed.offset() > first) {
                unsettled.remove(tp);
            }
        });
    }

    /**
     * Forgets every record handed out: a commit of all of them (an asynchronous one counts as made when asked for),
     * or the consumer unsubscribes or closes.
     */
    void clear() {
        unsettled.clear();
    }

    /** @param partitions sought explicitly by the caller, which replaces their rewind */
    void sought(Collection<TopicPartition> partitions) {
        unsettled.keySet().removeAll(partitions);
    }
}
