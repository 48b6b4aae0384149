package org.ingestquarantine.broker.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetCommitCallback;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka consumer that stays in its group while its thread works on one record for longer than
 * {@code max.poll.interval.ms}, and reads a record again, on the same consumer, until its offset is committed.
 *
 * <p><b>Keep-alive.</b> camel-kafka 4.17 processes a record on the thread that polls, so a slow
 * document would otherwise get the consumer thrown out of the group, its partition handed to another
 * consumer and the record processed again, forever. {@link #keepAlive} (called by {@link KafkaKeepAlive}
 * every heartbeat) pauses every assigned partition and polls with a zero timeout when the owning thread has
 * not polled for a heartbeat interval; the poll returns nothing for paused partitions but counts as a poll
 * (and takes part in a rebalance). The owning thread's next {@link #poll(Duration)} resumes what was paused
 * here, so the records behind the slow one are then read as usual.
 *
 * <p><b>Rewind.</b> A record the owning thread's {@link #poll(Duration)} handed out and that no commit
 * through this consumer has passed by the next {@code poll} (its exchange failed: released for
 * redelivery, or its outcome not committed) is sought back to before that poll, so the poll returns it
 * again: the partition never moves past a record whose outcome is not committed, and a redelivery costs no
 * rebalance. (camel-kafka's own {@code breakOnFirstError} instead closes the consumer and subscribes a new one,
 * which joins the group again before it fetches: seconds per redelivery, with every partition of that
 * consumer waiting.) A partition no longer assigned is not sought: its new owner reads it from the committed
 * offset. An explicit {@code seek} by the caller replaces the rewind of that partition. This needs one record
 * per poll ({@code max.poll.records=1}, checked by {@link KafkaKeepAlive}): with more, camel-kafka would go on
 * to the records behind a failed one in the same poll and commit past it.
 *
 * <p><b>Commit during a rebalance.</b> A commit the group refuses because it is rebalancing
 * ({@link RebalanceInProgressException}: a consumer joined or left, e.g. when the consumers start) is not an
 * unsettled record: its outcome is committed, only its offset waits. It is kept and committed again after the
 * owning thread's next poll (which is what ends the rebalance), and the record is not read again; a later commit of
 * the same partition covers it. If the rebalance moved the partition away, the kept offset is dropped and the new
 * owner reads the record again from the committed offset (at least once; its journal shows the outcome). Before
 * this, each refused commit rewound the partition, so a record was processed again, its attempt journalled again
 * and its delivery count raised, on every poll of a rebalance that lasted seconds (broker-bench: one record
 * delivered 454 times).
 *
 * <p>KafkaConsumer is not thread-safe: every call goes through one lock (the owning thread's rebalance
 * callbacks re-enter it), and {@link #keepAlive} only tries it, so it never waits behind a poll or a commit.
 * {@link #wakeup()} takes no lock, as Kafka intends. Should a keep-alive poll return records anyway (a
 * partition assigned during that very poll), the consumer is sought back to the first of them, so none is lost.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class KeepAliveConsumer<K, V> implements Consumer<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(KeepAliveConsumer.class);

    private final Consumer<K, V> delegate;
    private final ReentrantLock lock = new ReentrantLock();
    /** Partitions this class paused (not those paused by someone else before). */
    private final Set<TopicPartition> pausedHere = new HashSet<>();
    /** Per partition, the offset of the first record the owning thread's last poll handed out, until committed past. */
    private final Map<TopicPartition, Long> unsettled = new HashMap<>();
    /** Per partition, the offset of settled records whose commit a rebalance in progress refused. */
    private final Map<TopicPartition, OffsetAndMetadata> refusedCommits = new HashMap<>();
    private volatile long lastPollNanos;
    private volatile boolean polled;
    private volatile boolean retired;

    KeepAliveConsumer(Consumer<K, V> delegate) {
        this.delegate = delegate;
    }

    /** @return true once unsubscribed or closed: nothing left to keep alive */
    boolean retired() {
        return retired;
    }

    /**
     * Polls on behalf of a busy owning thread, if it has not polled for {@code interval}.
     *
     * @param interval the heartbeat interval
     * @return whether a keep-alive poll was made
     */
    boolean keepAlive(Duration interval) {
        if (retired || !polled || System.nanoTime() - lastPollNanos < interval.toNanos() || !lock.tryLock()) {
            return false;
        }
        try {
            pauseAssigned();
            ConsumerRecords<K, V> records = delegate.poll(Duration.ZERO);
            for (TopicPartition tp : records.partitions()) {
                delegate.seek(tp, records.records(tp).get(0).offset());
            }
            pauseAssigned();
            lastPollNanos = System.nanoTime();
            return true;
        } catch (WakeupException e) {
            // meant for the owning thread's poll (the consumer is stopping): hand it on
            delegate.wakeup();
            return false;
        } catch (RuntimeException e) {
            LOG.debug("keep-alive poll failed ({}); the owning thread's next poll decides", e.toString());
            return false;
        } finally {
            lock.unlock();
        }
    }

    private void pauseAssigned() {
        Set<TopicPartition> toPause = new HashSet<>(delegate.assignment());
        toPause.removeAll(delegate.paused());
        if (!toPause.isEmpty()) {
            delegate.pause(toPause);
            pausedHere.addAll(toPause);
        }
    }

    private void resumePausedHere() {
        if (!pausedHere.isEmpty()) {
            Set<TopicPartition> resume = new HashSet<>(pausedHere);
            resume.retainAll(delegate.assignment());
            delegate.resume(resume);
            pausedHere.clear();
        }
    }

    @Override
    public ConsumerRecords<K, V> poll(Duration timeout) {
        lock.lock();
        try {
            resumePausedHere();
            rewindUnsettled();
            ConsumerRecords<K, V> records = delegate.poll(timeout);
            commitRefused();
            for (TopicPartition tp : records.partitions()) {
                unsettled.put(tp, records.records(tp).get(0).offset());
            }
            return records;
        } finally {
            lastPollNanos = System.nanoTime();
            polled = true;
            lock.unlock();
        }
    }

    /** Seeks every partition still assigned back to the first record handed out and not committed past. */
    private void rewindUnsettled() {
        if (unsettled.isEmpty()) {
            return;
        }
        Set<TopicPartition> assigned = delegate.assignment();
        unsettled.forEach((tp, offset) -> {
            if (assigned.contains(tp)) {
                delegate.seek(tp, offset);
                LOG.debug("{} read again from offset {}: not committed", tp, offset);
            }
        });
        unsettled.clear();
    }

    /**
     * Commits again the offsets a rebalance refused, for the partitions still assigned (the poll before ended
     * the rebalance, or the next one will); a partition moved away is left to its new owner.
     */
    private void commitRefused() {
        if (refusedCommits.isEmpty()) {
            return;
        }
        refusedCommits.keySet().retainAll(delegate.assignment());
        if (refusedCommits.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(refusedCommits);
        try {
            delegate.commitSync(offsets);
            offsets.forEach(refusedCommits::remove);
            LOG.debug("committed {} after the rebalance", offsets);
        } catch (RebalanceInProgressException e) {
            LOG.debug("{} still refused: the group is rebalancing", offsets.keySet());
        } catch (RuntimeException e) {
            // fenced out of the group (CommitFailedException) or the like: the partitions' new owners read the
            // records again from the committed offsets
            refusedCommits.clear();
            LOG.debug("{} not committed ({}); read again by the partitions' owners", offsets.keySet(), e.toString());
        }
    }

    /**
     * Commits {@code offsets}; a refusal because the group is rebalancing keeps them for after the next poll
     * instead of failing, since their records are settled.
     */
    private void commitOrKeep(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        try {
            if (timeout == null) {
                delegate.commitSync(offsets);
            } else {
                delegate.commitSync(offsets, timeout);
            }
            offsets.forEach((tp, committed) -> {
                OffsetAndMetadata refused = refusedCommits.get(tp);
                if (refused != null && committed != null && committed.offset() >= refused.offset()) {
                    refusedCommits.remove(tp);
                }
            });
        } catch (RebalanceInProgressException e) {
            offsets.forEach((tp, o) -> refusedCommits.merge(tp, o, (a, b) -> a.offset() >= b.offset() ? a : b));
            LOG.debug("{} refused while the group rebalances: committed after the next poll", offsets);
        }
        settled(offsets);
    }

    /** Forgets the records that a commit of {@code offsets} has passed. */
    private void settled(Map<TopicPartition, OffsetAndMetadata> offsets) {
        offsets.forEach((tp, committed) -> {
            Long first = unsettled.get(tp);
            if (first != null && committed != null && committed.offset() > first) {
                unsettled.remove(tp);
            }
        });
    }

    @Override
    @Deprecated
    public ConsumerRecords<K, V> poll(long timeoutMs) {
        return poll(Duration.ofMillis(timeoutMs));
    }

    @Override
    public void unsubscribe() {
        lock.lock();
        try {
            retired = true;
            pausedHere.clear();
            unsettled.clear();
            refusedCommits.clear();
            delegate.unsubscribe();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }

    @Override
    public void close(Duration timeout) {
        lock.lock();
        try {
            retired = true;
            unsettled.clear();
            refusedCommits.clear();
            delegate.close(timeout);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    /** Runs {@code call} under the lock. */
    private <T> T locked(java.util.function.Supplier<T> call) {
        lock.lock();
        try {
            return call.get();
        } finally {
            lock.unlock();
        }
    }

    private void locked(Runnable call) {
        lock.lock();
        try {
            call.run();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Set<TopicPartition> assignment() {
        return locked(delegate::assignment);
    }

    @Override
    public Set<String> subscription() {
        return locked(delegate::subscription);
    }

    @Override
    public void subscribe(Collection<String> topics) {
        locked(() -> delegate.subscribe(topics));
    }

    @Override
    public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
        locked(() -> delegate.subscribe(topics, listener));
    }

    @Override
    public void assign(Collection<TopicPartition> partitions) {
        locked(() -> delegate.assign(partitions));
    }

    @Override
    public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
        locked(() -> delegate.subscribe(pattern, listener));
    }

    @Override
    public void subscribe(Pattern pattern) {
        locked(() -> delegate.subscribe(pattern));
    }

    @Override
    public void commitSync() {
        locked(() -> {
            delegate.commitSync();
            unsettled.clear();
        });
    }

    @Override
    public void commitSync(Duration timeout) {
        locked(() -> {
            delegate.commitSync(timeout);
            unsettled.clear();
        });
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        locked(() -> commitOrKeep(offsets, null));
    }

    @Override
    public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
        locked(() -> commitOrKeep(offsets, timeout));
    }

    @Override
    public void commitAsync() {
        // an asynchronous commit counts as made when asked for: its outcome is not waited for
        locked(() -> {
            delegate.commitAsync();
            unsettled.clear();
        });
    }

    @Override
    public void commitAsync(OffsetCommitCallback callback) {
        locked(() -> {
            delegate.commitAsync(callback);
            unsettled.clear();
        });
    }

    @Override
    public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
        locked(() -> {
            delegate.commitAsync(offsets, callback);
            settled(offsets);
        });
    }

    @Override
    public void seek(TopicPartition partition, long offset) {
        locked(() -> {
            delegate.seek(partition, offset);
            unsettled.remove(partition);
        });
    }

    @Override
    public void seek(TopicPartition partition, OffsetAndMetadata offsetAndMetadata) {
        locked(() -> {
            delegate.seek(partition, offsetAndMetadata);
            unsettled.remove(partition);
        });
    }

    @Override
    public void seekToBeginning(Collection<TopicPartition> partitions) {
        locked(() -> {
            delegate.seekToBeginning(partitions);
            unsettled.keySet().removeAll(partitions);
        });
    }

    @Override
    public void seekToEnd(Collection<TopicPartition> partitions) {
        locked(() -> {
            delegate.seekToEnd(partitions);
            unsettled.keySet().removeAll(partitions);
        });
    }

    @Override
    public long position(TopicPartition partition) {
        return locked(() -> delegate.position(partition));
    }

    @Override
    public long position(TopicPartition partition, Duration timeout) {
        return locked(() -> delegate.position(partition, timeout));
    }

    @Override
    @Deprecated
    public OffsetAndMetadata committed(TopicPartition partition) {
        return locked(() -> delegate.committed(partition));
    }

    @Override
    @Deprecated
    public OffsetAndMetadata committed(TopicPartition partition, Duration timeout) {
        return locked(() -> delegate.committed(partition, timeout));
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
        return locked(() -> delegate.committed(partitions));
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
        return locked(() -> delegate.committed(partitions, timeout));
    }

    @Override
    public Uuid clientInstanceId(Duration timeout) {
        return locked(() -> delegate.clientInstanceId(timeout));
    }

    @Override
    public Map<MetricName, ? extends Metric> metrics() {
        return delegate.metrics();
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic) {
        return locked(() -> delegate.partitionsFor(topic));
    }

    @Override
    public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
        return locked(() -> delegate.partitionsFor(topic, timeout));
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics() {
        return locked(() -> delegate.listTopics());
    }

    @Override
    public Map<String, List<PartitionInfo>> listTopics(Duration timeout) {
        return locked(() -> delegate.listTopics(timeout));
    }

    @Override
    public Set<TopicPartition> paused() {
        return locked(delegate::paused);
    }

    /**
     * A pause of the caller's own (camel-kafka pauses every partition when its route is suspended, as a shutdown
     * begins) is the caller's to undo: those partitions are no longer this class's to resume, even when a
     * keep-alive poll had paused them first. Before, the next poll resumed them, so a stopping consumer read its
     * released record again and again until the shutdown timeout.
     */
    @Override
    public void pause(Collection<TopicPartition> partitions) {
        locked(() -> {
            pausedHere.removeAll(partitions);
            delegate.pause(partitions);
        });
    }

    @Override
    public void resume(Collection<TopicPartition> partitions) {
        locked(() -> {
            pausedHere.removeAll(partitions);
            delegate.resume(partitions);
        });
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
        return locked(() -> delegate.offsetsForTimes(timestamps));
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(Map<TopicPartition, Long> timestamps,
                                                                   Duration timeout) {
        return locked(() -> delegate.offsetsForTimes(timestamps, timeout));
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return locked(() -> delegate.beginningOffsets(partitions));
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return locked(() -> delegate.beginningOffsets(partitions, timeout));
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return locked(() -> delegate.endOffsets(partitions));
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions, Duration timeout) {
        return locked(() -> delegate.endOffsets(partitions, timeout));
    }

    @Override
    public OptionalLong currentLag(TopicPartition partition) {
        return locked(() -> delegate.currentLag(partition));
    }

    @Override
    public ConsumerGroupMetadata groupMetadata() {
        return locked(delegate::groupMetadata);
    }

    @Override
    public void enforceRebalance() {
        locked(() -> delegate.enforceRebalance());
    }

    @Override
    public void enforceRebalance(String reason) {
        locked(() -> delegate.enforceRebalance(reason));
    }
}
