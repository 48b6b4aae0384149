package org.ingestquarantine.bench;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.support.SynchronizationAdapter;

/**
 * Counts the messages a benchmark route finished and the time between the first and the last, so that
 * consumer start-up (Kafka group join, SQS long poll) is not measured. Bound as {@code benchMeter} by
 * {@code bench/routes/bench-bare-consumer.camel.yaml}. Thread-safe.
 */
public final class BenchMeter {

    private final AtomicInteger count = new AtomicInteger();
    private final AtomicLong firstNanos = new AtomicLong();
    private final AtomicLong lastNanos = new AtomicLong();

    /** Forgets every earlier tick. */
    public void reset() {
        count.set(0);
        firstNanos.set(0);
        lastNanos.set(0);
    }

    /** Marks one message done. */
    public void tick() {
        long now = System.nanoTime();
        firstNanos.compareAndSet(0, now);
        lastNanos.accumulateAndGet(now, Math::max);
        count.incrementAndGet();
    }

    /**
     * The bare route's whole work: marks the message done and, on Kafka, commits its offset when the
     * exchange completes, as the pipeline's KafkaBrokerAdapter does (SQS deletes and RabbitMQ acknowledges
     * a completed exchange by themselves).
     *
     * @param exchange a consumed message
     */
    public void bare(Exchange exchange) {
        KafkaManualCommit commit = exchange.getIn().getHeader(KafkaConstants.MANUAL_COMMIT, KafkaManualCommit.class);
        if (commit != null) {
            exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                @Override
                public void onComplete(Exchange done) {
                    commit.commit();
                }
            });
        }
        tick();
    }

    /** @return messages done since the last {@link #reset()} */
    public int count() {
        return count.get();
    }

    /** @return messages per second between the first and the last tick, over {@code count - 1} intervals */
    public double rate() {
        long span = lastNanos.get() - firstNanos.get();
        return span <= 0 ? 0 : (count.get() - 1) * 1e9 / span;
    }
}
