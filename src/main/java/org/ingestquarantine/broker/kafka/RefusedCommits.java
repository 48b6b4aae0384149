package org.ingestquarantine.broker.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commits of {@link KeepAliveConsumer} that the group refused because it is rebalancing
 * ({@link RebalanceInProgressException}: a consumer joined or left, e.g. when the consumers start). Such a commit
 * is not an unsettled record: its outcome is committed, only its offset waits. It is kept and committed again after
 * the owning thread's next poll (which is what ends the rebalance), and the record is not read again; a later
 * commit of the same partition covers it. If the rebalance moved the partition away, the kept offset is dropped
 * and the new owner reads the record again from the committed offset (at least once; its journal shows the
 * outcome). Before this, each refused commit rewound the partition, so a record was processed again, its attempt
 * journalled again and its delivery count raised, on every poll of a rebalance that lasted seconds (broker-bench:
 * one record delivered 454 times).
 *
 * <p>Not thread-safe: used under {@link KeepAliveConsumer}'s lock.
 */
final class RefusedCommits {

    private static final Logger LOG = LoggerFactory.getLogger(RefusedCommits.class);

    /** Per partition, the offset of settled records whose commit a rebalance in progress refused. */
    private final Map<TopicPartition, OffsetAndMetadata> refused = new HashMap<>();

    /**
     * Commits {@code offsets}; a refusal because the group is rebalancing keeps them for after the next poll
     * instead of failing, since their records are settled.
     *
     * @param timeout the commit's timeout; {@code null}: the consumer's default
     */
    void commit(Consumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        try {
            if (timeout == null) {
                consumer.commitSync(offsets);
            } else {
                consumer.commitSync(offsets, timeout);
            }
            offsets.forEach((tp, committed) -> {
                OffsetAndMetadata kept = refused.get(tp);
                if (kept != null && committed != null && committed.offset() >= kept.offset()) {
                    refused.remove(tp);
                }
            });
        } catch (RebalanceInProgressException e) {
            offsets.forEach((tp, o) -> refused.merge(tp, o, (a, b) -> a.offset() >= b.offset() ? a : b));
            LOG.debug("{} refused while the group rebalances: committed after the next poll", offsets);
        }
    }

    /**
     * Commits again the offsets a rebalance refused, for the partitions still assigned (the poll before ended
     * the rebalance, or the next one will); a partition moved away is left to its new owner.
     */
    void retry(Consumer<?, ?> consumer) {
        if (refused.isEmpty()) {
            return;
        }
        refused.keySet().retainAll(consumer.assignment());
        if (refused.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(refused);
        try {
            consumer.commitSync(offsets);
            offsets.forEach(refused::remove);
            LOG.debug("committed {} after the rebalance", offsets);
        } catch (RebalanceInProgressException e) {
            LOG.debug("{} still refused: the group is rebalancing", offsets.keySet());
        } catch (RuntimeException e) {
            // fenced out of the group (CommitFailedException) or the like: the partitions' new owners read the
            // records again from the committed offsets
            refused.clear();
            LOG.debug("{} not committed ({}); read again by the partitions' owners", offsets.keySet(), e.toString());
        }
    }

    /** Drops every kept offset (the consumer unsubscribes or closes). */
    void clear() {
        refused.clear();
    }
}
