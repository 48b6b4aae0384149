package org.ingestquarantine.broker.kafka;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The partitions a keep-alive poll of {@link KeepAliveConsumer} paused (not those paused by someone else before),
 * resumed by the owning thread's next poll, so the records behind a slow one are then read as usual.
 *
 * <p>A pause of the caller's own (camel-kafka pauses every partition when its route is suspended, as a shutdown
 * begins) is the caller's to undo: those partitions are no longer this class's to resume, even when a keep-alive
 * poll had paused them first. Before, the next poll resumed them, so a stopping consumer read its released record
 * again and again until the shutdown timeout.
 *
 * <p>Not thread-safe: used under {@link KeepAliveConsumer}'s lock.
 */
final class KeepAlivePauses {

    private final Set<TopicPartition> pausedHere = new HashSet<>();

    /** Pauses every assigned partition not paused yet. */
    void pauseAssigned(Consumer<?, ?> consumer) {
        Set<TopicPartition> toPause = new HashSet<>(consumer.assignment());
        toPause.removeAll(consumer.paused());
        if (!toPause.isEmpty()) {
            consumer.pause(toPause);
            pausedHere.addAll(toPause);
        }
    }

    /** Resumes what {@link #pauseAssigned} paused and is still assigned. */
    void resume(Consumer<?, ?> consumer) {
        if (!pausedHere.isEmpty()) {
            Set<TopicPartition> resume = new HashSet<>(pausedHere);
            resume.retainAll(consumer.assignment());
            consumer.resume(resume);
            pausedHere.clear();
        }
    }

    /** @param partitions paused or resumed by the caller itself: theirs to undo, no longer this class's */
    void handOver(Collection<TopicPartition> partitions) {
        pausedHere.removeAll(partitions);
    }

    /** Forgets every pause (the consumer unsubscribes or closes). */
    void clear() {
        pausedHere.clear();
    }
}
