package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts this process has open (journalled by {@link DeliveryGuard}, their exchanges not yet complete),
 * so that a shutdown that cannot wait for them any longer can {@link #abandonAll abandon} them: each is
 * closed as {@code released} in the journal (not a death) and its message handed back to the broker, and a
 * later failure of its exchange (say the parser pool stopping under it) releases it again instead of
 * quarantining it ({@link #isAbandoned}). Thread-safe.
 */
public final class InFlightAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(InFlightAttempts.class);

    private final Map<Long, Exchange> open = new ConcurrentHashMap<>();
    private final Set<Long> abandoned = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;
    private final Object stopSignal = new Object();

    /**
     * Remembers an attempt until its exchange completes, whatever its outcome.
     *
     * @param attemptId the journal's id of the attempt
     * @param exchange the delivery working on it
     */
    public void add(long attemptId, Exchange exchange) {
        open.put(attemptId, exchange);
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                open.remove(attemptId, exchange);
            }
        });
    }

    /**
     * From now on no delivery is admitted ({@link DeliveryGuard#admit} hands it back unworked): a broker
     * client may still hand over a message it received after the consumers were told to stop (an SQS long
     * poll already waiting, RabbitMQ's prefetched messages, a Kafka batch). A release waiting out its back-off
     * ({@link #awaitStopping}) stops waiting.
     */
    public void stopAdmitting() {
        synchronized (stopSignal) {
            stopping = true;
            stopSignal.notifyAll();
        }
    }

    /**
     * Waits up to {@code wait}, or until this process is stopping ({@link #stopAdmitting()}, before or during the
     * wait), or until interrupted: the back-off of a release held on the consumer thread (Kafka), which must not
     * hold a shutdown up.
     *
     * @param wait how long at most
     * @return {@code true} if the whole wait passed, {@code false} if it ended early (stopping, or interrupted:
     *     the thread's interrupt flag is then set again)
     */
    public boolean awaitStopping(Duration wait) {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (stopSignal) {
            while (!stopping) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return true;
                }
                try {
                    java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(stopSignal, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return false;
        }
    }

    /**
     * Admits deliveries again after {@link #stopAdmitting()}: the consumer route, stopped on its own while the
     * application runs on, is being started again.
     */
    public void resumeAdmitting() {
        stopping = false;
    }

    /** @return whether {@link #stopAdmitting()} was called and no {@link #resumeAdmitting()} since */
    public boolean isStopping() {
        return stopping;
    }

    /** @return attempts open now */
    public int size() {
        return open.size();
    }

    /**
     * @param exchange a delivery
     * @return whether its attempt was abandoned by a shutdown
     */
    public boolean isAbandoned(Exchange exchange) {
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        return attemptId != null && abandoned.contains(attemptId);
    }

    /**
     * Gives up every open attempt: closes it as {@code released} and hands its message back at once
     * ({@link BrokerAdapter#release} with no delay: SQS makes it visible again; RabbitMQ and Kafka get it back
     * unacknowledged when this consumer stops). The threads working on them are not stopped; whatever they
     * do afterwards cannot quarantine the message ({@link #isAbandoned}).
     *
     * @param journal where the attempts are closed
     * @param broker hands the messages back
     * @return how many attempts were abandoned
     */
    public int abandonAll(AttemptJournal journal, BrokerAdapter broker) {
        int n = 0;
        for (Map.Entry<Long, Exchange> e : open.entrySet()) {
            long attemptId = e.getKey();
            Exchange exchange = e.getValue();
            abandoned.add(attemptId);
            journal.close(attemptId, AttemptOutcome.RELEASED);
            broker.release(exchange, Duration.ZERO);
            LOG.warn("{} abandoned at {} by the shutdown (its time ran out); released, not a death",
                    LogSafe.identity(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class)),
                    exchange.getProperty(PipelineKeys.STAGE, String.class));
            n++;
        }
        return n;
    }
}
