package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * First step of every delivery, before any work: records the broker's delivery identity and count,
 * refuses a message whose earlier attempts died, and opens this attempt in the journal: on the happy path
 * one statement does all three ({@link AttemptJournal#admit}), and it also reads the version the index holds
 * ({@link PipelineKeys#INDEXED}), so that an unchanged document costs no further read.
 *
 * <p>A death is an attempt that was opened and never closed (DESIGN.md §2): a delivery whose earlier
 * attempt ended with a recorded outcome, say a transient failure that released the message, is not a
 * death. Once the deaths reach the resource_fatal budget ({@code retries + 1}), this delivery throws
 * {@link ConsumerDiedException} and the message is quarantined as resource_fatal without being
 * processed again.
 *
 * <p><b>Settled before.</b> A delivery whose key already has an attempt closed with a committed outcome
 * (indexed, skipped or quarantined) is a message whose acknowledgement was lost, say a Kafka offset commit that
 * failed while Kafka was down: it is acknowledged with no attempt and no work ({@link PipelineKeys#SETTLED_ELSEWHERE}),
 * so a recorded delivery that comes again adds no attempt and no dead-letter copy.
 *
 * <p><b>Live attempts.</b> An open attempt whose lease still runs is not a death: another consumer is
 * working on the message now (SQS handed it out again, Kafka moved its partition). This delivery then waits,
 * reading the journal every {@code pollInterval}, while the broker keeps the message for it (SQS visibility is
 * extended, Kafka's consumer keeps polling, RabbitMQ holds an unacknowledged message), until no attempt is
 * live: if one it waited for committed its outcome, the message is settled and this delivery is acknowledged
 * with no work ({@link PipelineKeys#SETTLED_ELSEWHERE}); otherwise (released, or its owner died) it goes on
 * as usual. Still live after {@code maxWait}: it throws {@link AttemptInProgressException} and is handed
 * back after one lease, with no attempt opened; except at the broker's redrive count
 * ({@link BrokerAdapter#redriveAt}, SQS maxReceiveCount), where a hand-back would have the broker dead-letter a
 * message that is being worked on: that delivery keeps waiting while the other attempt stays live.
 *
 * <p><b>No outcome.</b> An admitted delivery that completes without an outcome has its attempt closed as abandoned
 * before the acknowledgement ({@link AbandonedDelivery}, added here so that a route edit cannot remove it).
 */
public final class DeliveryGuard {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeliveryGuard.class);

    private final BrokerAdapter broker;
    private final AttemptJournal journal;
    private final RedeliveryPolicies policies;
    private final InFlightAttempts inFlight;
    private final Duration pollInterval;
    private final Duration maxWait;
    private final org.ingestquarantine.metrics.PipelineMetrics metrics;

    /**
     * @param broker reads the delivery key and count
     * @param journal the attempt journal
     * @param policies gives the resource_fatal budget
     * @param inFlight remembers every attempt opened until its exchange completes (for the shutdown)
     * @param pollInterval how often a delivery waiting for a live attempt reads the journal (property
     *     {@code delivery.heartbeat-interval-ms})
     * @param maxWait the longest such a wait (property {@code delivery.live-attempt-wait-ms}); zero = hand
     *     back at once
     * @param metrics counts a delivery that ends without an outcome ({@link AbandonedDelivery})
     */
    public DeliveryGuard(BrokerAdapter broker, AttemptJournal journal, RedeliveryPolicies policies,
                         InFlightAttempts inFlight, Duration pollInterval, Duration maxWait,
                         org.ingestquarantine.metrics.PipelineMetrics metrics) {
        this.broker = broker;
        this.journal = journal;
        this.policies = policies;
        this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    /**
     * Reads the delivery key and count into the exchange. This does no I/O, so it cannot fail for a database
     * outage; the failure route relies on these two properties. On Kafka ({@link BrokerAdapter#countsInJournal})
     * the count is left to {@link #admit}, whose statement counts it from the journal; a delivery that fails
     * before (an unreadable message) has it read when its failure is decided ({@link FailureDisposition}).
     *
     * @param exchange the consumed message
     */
    public void capture(Exchange exchange) {
        exchange.setProperty(PipelineKeys.STAGE, "receive");
        exchange.setProperty(PipelineKeys.DELIVERY_KEY, broker.deliveryKey(exchange));
        if (!broker.countsInJournal()) {
            exchange.setProperty(PipelineKeys.DELIVERY_COUNT, broker.deliveryCount(exchange));
        }
    }

    /**
     * @param exchange the consumed message, after {@link #capture} and after the message was read
     * @throws ConsumerDiedException when earlier attempts died as often as resource_fatal allows
     * @throws ShutdownException when this process is stopping (no attempt is opened; the message goes back)
     * @throws AttemptInProgressException when another attempt stayed live for the whole wait
     */
    public void admit(Exchange exchange) {
        if (inFlight.isStopping()) {
            throw new ShutdownException("delivered while this process is stopping; handed back unworked", null);
        }
        String key = exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class);
        // null on Kafka: the admitting statement counts it from the journal
        Integer given = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        int budget = policies.forClass(ErrorClass.RESOURCE_FATAL).maxDeliveries();
        // the happy path: one statement reads the deaths and live attempts and opens this attempt
        AttemptJournal.Admission admission = journal.admit(key, message.source(), message.docId(), given, budget);
        int count = admission.deliveryCount();
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, count);
        if (admission.open().anyLive()) {
            Set<Long> waitedFor = new LinkedHashSet<>();
            long deadline = System.nanoTime() + maxWait.toNanos();
            do {
                awaitNoLiveAttempt(exchange, key, admission.open(), waitedFor, deadline);
                if (journal.settledAny(waitedFor)) {
                    LOG.info("{}: the attempt this delivery waited for settled the message; acknowledged, no work",
                            LogSafe.identity(key));
                    exchange.setProperty(PipelineKeys.SETTLED_ELSEWHERE, Boolean.TRUE);
                    return;
                }
                admission = journal.admit(key, message.source(), message.docId(), count, budget);
            } while (admission.open().anyLive());
        }
        // released by a fault of our own route, or handed back while the source was paused: no budget counts them
        // (FailureDisposition)
        exchange.setProperty(PipelineKeys.PIPELINE_FAULTS, admission.pipelineFaults());
        exchange.setProperty(PipelineKeys.STORM_PAUSES, admission.stormPauses());
        if (admission.settled()) {
            LOG.info("{}: an earlier attempt settled this delivery (its acknowledgement did not reach the broker);"
                    + " acknowledged, no work", LogSafe.identity(key));
            exchange.setProperty(PipelineKeys.SETTLED_ELSEWHERE, Boolean.TRUE);
            return;
        }
        Deaths deaths = admission.open().deaths();
        if (count > 1 || deaths.count() > 0) {
            LOG.info("{} delivered {} times; {} earlier attempt(s) never finished", LogSafe.identity(key), count,
                    deaths.count());
        }
        if (admission.attemptId() == null) {
            // the deaths reached the budget: no attempt was opened
            if (deaths.lastStage() != null) {
                exchange.setProperty(PipelineKeys.STAGE, deaths.lastStage());
            }
            throw new ConsumerDiedException(deaths.count(), deaths.lastStage());
        }
        long attemptId = admission.attemptId();
        exchange.setProperty(PipelineKeys.ATTEMPT_ID, attemptId);
        if (admission.indexed() != null) {
            exchange.setProperty(PipelineKeys.INDEXED, admission.indexed());
        }
        if (admission.openRecord()) {
            exchange.setProperty(PipelineKeys.OPEN_RECORD, Boolean.TRUE);
        }
        inFlight.add(attemptId, exchange);
        // a delivery that completes without an outcome (a route's stop) is closed as abandoned before its ack
        exchange.getExchangeExtension().addOnCompletion(new AbandonedDelivery(attemptId, journal::close, metrics));
        // whatever happens next, the heartbeat stops renewing this attempt once the delivery ends
        exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
            @Override
            public void onDone(Exchange done) {
                journal.forget(attemptId);
            }
        });
    }

    /** Waits while another attempt at {@code key} is live (reading only); returns once none is. */
    private void awaitNoLiveAttempt(Exchange exchange, String key, AttemptJournal.OpenAttempts open,
                                    Set<Long> waitedFor, long deadline) {
        LOG.info("{} is being worked on by {} live attempt(s) elsewhere; waiting for them", LogSafe.identity(key),
                open.live().size());
        while (open.anyLive()) {
            waitedFor.addAll(open.live());
            boolean waitedEnough = System.nanoTime() - deadline >= 0 && count(exchange) < broker.redriveAt();
            if (waitedEnough || inFlight.isStopping() || !pause()) {
                LOG.info("{} still worked on elsewhere; handed back for {} ms, not counted", LogSafe.identity(key),
                        journal.lease().duration().toMillis());
                exchange.setProperty(PipelineKeys.BACKOFF, journal.lease().duration());
                throw new AttemptInProgressException(open.live().size());
            }
            open = journal.openAttempts(key);
        }
    }

    private static int count(Exchange exchange) {
        return exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
    }

    /** @return false if interrupted (the consumer is stopping) */
    private boolean pause() {
        try {
            Thread.sleep(pollInterval.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
