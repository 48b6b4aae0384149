package org.ingestquarantine.broker.kafka;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka consumer ({@link #consumer()}, a {@link Proxy} of {@link Consumer} around Kafka's own) that stays in its
 * group while its thread works on one record for longer than {@code max.poll.interval.ms}, and reads a record
 * again, on the same consumer, until its offset is committed. Every other call goes to Kafka's consumer as it is.
 *
 * <p><b>Keep-alive.</b> camel-kafka 4.17 processes a record on the thread that polls, so a slow document would
 * otherwise get the consumer thrown out of the group, its partition handed to another consumer and the record
 * processed again, forever. {@link #keepAlive} (called by {@link KafkaKeepAlive} every heartbeat) pauses every
 * assigned partition and polls with a zero timeout when the owning thread has not polled for a heartbeat interval;
 * the poll returns nothing for paused partitions but counts as a poll (and takes part in a rebalance). The owning
 * thread's next poll resumes what was paused here ({@link KeepAlivePauses}). Should a keep-alive poll return
 * records anyway (a partition assigned during that very poll), the consumer is sought back to the first of them,
 * so none is lost.
 *
 * <p><b>Rewind.</b> A record handed out and not committed past by the next poll is read again by that poll
 * ({@link Rewind}). <b>Commit during a rebalance.</b> A commit the group refuses while it rebalances is kept and
 * made after the next poll, its record not read again ({@link RefusedCommits}).
 *
 * <p>KafkaConsumer is not thread-safe: every call goes through one lock (the owning thread's rebalance callbacks
 * re-enter it), and {@link #keepAlive} only tries it, so it never waits behind a poll or a commit. {@code wakeup}
 * and {@code metrics} take no lock, as Kafka intends.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class KeepAliveConsumer<K, V> implements InvocationHandler {

    private static final Logger LOG = LoggerFactory.getLogger(KeepAliveConsumer.class);

    private final Consumer<K, V> delegate;
    private final Consumer<K, V> proxy;
    private final ReentrantLock lock = new ReentrantLock();
    private final KeepAlivePauses pauses = new KeepAlivePauses();
    private final Rewind rewind = new Rewind();
    private final RefusedCommits refused = new RefusedCommits();
    private volatile long lastPollNanos;
    private volatile boolean polled;
    private volatile boolean retired;

    @SuppressWarnings("unchecked")
    private KeepAliveConsumer(Consumer<K, V> delegate) {
        this.delegate = delegate;
        this.proxy = (Consumer<K, V>) Proxy.newProxyInstance(Consumer.class.getClassLoader(),
                new Class<?>[] {Consumer.class}, this);
    }

    /**
     * @param delegate Kafka's consumer, used only through the returned one from now on
     * @return its keep-alive consumer
     */
    static <K, V> KeepAliveConsumer<K, V> around(Consumer<K, V> delegate) {
        return new KeepAliveConsumer<>(delegate);
    }

    /** @return the consumer to hand out, in place of the delegate */
    Consumer<K, V> consumer() {
        return proxy;
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
            pauses.pauseAssigned(delegate);
            ConsumerRecords<K, V> records = delegate.poll(Duration.ZERO);
            for (TopicPartition tp : records.partitions()) {
                delegate.seek(tp, records.records(tp).get(0).offset());
            }
            pauses.pauseAssigned(delegate);
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

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (method.getDeclaringClass() == Object.class) {
            return switch (name) {
                case "equals" -> self == args[0];
                case "hashCode" -> System.identityHashCode(self);
                default -> "KeepAliveConsumer[" + delegate + "]";
            };
        }
        if (name.equals("wakeup") || name.equals("metrics")) {
            return call(method, args);
        }
        lock.lock();
        try {
            return switch (name) {
                case "poll" -> poll(args[0] instanceof Duration d ? d : Duration.ofMillis((Long) args[0]));
                case "commitSync", "commitAsync" -> commit(method, args);
                case "seek" -> sought(List.of((TopicPartition) args[0]), method, args);
                case "seekToBeginning", "seekToEnd" -> sought(partitions(args[0]), method, args);
                case "pause", "resume" -> {
                    pauses.handOver(partitions(args[0]));
                    yield call(method, args);
                }
                case "unsubscribe", "close" -> {
                    retired = true;
                    pauses.clear();
                    rewind.clear();
                    refused.clear();
                    yield call(method, args);
                }
                default -> call(method, args);
            };
        } finally {
            lock.unlock();
        }
    }

    private ConsumerRecords<K, V> poll(Duration timeout) {
        try {
            pauses.resume(delegate);
            rewind.seekBack(delegate);
            ConsumerRecords<K, V> records = delegate.poll(timeout);
            refused.retry(delegate);
            rewind.handedOut(records);
            return records;
        } finally {
            lastPollNanos = System.nanoTime();
            polled = true;
        }
    }

    /** A commit of given offsets settles the records it passes; one of everything consumed settles them all. */
    private Object commit(Method method, Object[] args) throws Throwable {
        if (args == null || !(args[0] instanceof Map<?, ?>)) {
            Object result = call(method, args);
            rewind.clear();
            return result;
        }
        @SuppressWarnings("unchecked")
        Map<TopicPartition, OffsetAndMetadata> offsets = (Map<TopicPartition, OffsetAndMetadata>) args[0];
        if (method.getName().equals("commitSync")) {
            refused.commit(delegate, offsets, args.length > 1 ? (Duration) args[1] : null);
        } else {
            call(method, args);
        }
        rewind.settled(offsets);
        return null;
    }

    private Object sought(Collection<TopicPartition> partitions, Method method, Object[] args) throws Throwable {
        Object result = call(method, args);
        rewind.sought(partitions);
        return result;
    }

    private Object call(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    private static Collection<TopicPartition> partitions(Object arg) {
        return (Collection<TopicPartition>) arg;
    }
}
