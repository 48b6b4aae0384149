package org.ingestquarantine.delivery;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, for a failed delivery, between quarantine (its class's budget is spent) and release (the broker
 * redelivers it after the class's back-off). The route configuration's {@code handled} and the failure
 * route ask the same question here, of the same classification, so they cannot disagree.
 *
 * <p>A delivery this process cut short itself, because it is stopping (a {@link ShutdownException}, or an
 * attempt the shutdown {@link InFlightAttempts#abandonAll abandoned}), is released with the transient
 * back-off and never quarantined: nothing is known to be wrong with the document. So is one that failed because
 * a service it needs cannot be reached (a {@link ServiceUnreachableException}: the embedding service down), as a
 * database outage's is: the consumer is held until the service answers ({@link ConsumerCircuitBreaker}); the
 * broker still counts the delivery.
 *
 * <p>A fault of our own route ({@link ErrorClass#PIPELINE_FAULT}) is not the document's: it is released, never
 * quarantined, with the route-fault hold as its back-off (the consumer is held as long,
 * {@link ConsumerCircuitBreaker}), and it spends none of the document's budget: the deliveries an earlier route
 * fault released ({@link PipelineKeys#PIPELINE_FAULTS}, from the journal) are left out of the count a class's
 * budget is compared with. The broker's own backstop (SQS maxReceiveCount, RabbitMQ's delivery limit) still
 * counts them. So are the deliveries handed back unworked while the failure-storm breaker had paused the source
 * ({@link PipelineKeys#STORM_PAUSES}, {@link FailureStorm}).
 *
 * <p>The delivery count has one meaning everywhere: deliveries so far counting the current one, from
 * {@link PipelineKeys#DELIVERY_COUNT}. A class with {@code retries} r is quarantined on delivery r + 1, route
 * faults not counted.
 *
 * <p>The decision is made of parts, one job each: {@link DeliveryCounts} (the count, and its charged part),
 * {@link FailureCharge} (charged to the document? budget spent?) and {@link ReleaseBackoff} (the wait before the
 * redelivery); this class decides, marks the exchange and logs.
 */
public final class FailureDisposition {

    /** Value of {@link PipelineKeys#DISPOSITION} when the budget is spent. */
    public static final String QUARANTINE = "quarantine";
    /** Value of {@link PipelineKeys#DISPOSITION} when the broker should redeliver. */
    public static final String RELEASE = "release";

    private static final Logger LOG = LoggerFactory.getLogger(FailureDisposition.class);

    private final ClassifyFailure classification;
    private final FailureCharge charge;
    private final ReleaseBackoff backoff;

    /**
     * A disposition for a process whose attempts are never abandoned (tests of single routes).
     *
     * @param policies one policy per class
     * @param classification the failure's classification on the exchange
     */
    public FailureDisposition(RedeliveryPolicies policies, ClassifyFailure classification) {
        this(policies, classification, new InFlightAttempts());
    }

    /**
     * A disposition that releases a route fault's message with no back-off (tests of single routes).
     *
     * @param policies one policy per class
     * @param classification the failure's classification on the exchange
     * @param inFlight knows which attempts a shutdown abandoned
     */
    public FailureDisposition(RedeliveryPolicies policies, ClassifyFailure classification, InFlightAttempts inFlight) {
        this(policies, classification, inFlight, null, Duration.ZERO);
    }


    /**
     * @param policies one policy per class
     * @param classification the failure's classification on the exchange
     * @param inFlight knows which attempts a shutdown abandoned
     * @param broker reads the delivery count of a delivery that failed before {@link DeliveryGuard#admit} counted
     *     it (Kafka, {@link BrokerAdapter#countsInJournal}: one journal read, on the failure path only); null:
     *     the count is only taken from the exchange
     * @param routeFaultHold the back-off of a message a fault of our own route released (property
     *     {@code pipeline-fault.hold-ms}, the consumer's hold)
     */
    public FailureDisposition(RedeliveryPolicies policies, ClassifyFailure classification, InFlightAttempts inFlight,
                              BrokerAdapter broker, Duration routeFaultHold) {
        DeliveryCounts counts = new DeliveryCounts(broker);
        this.classification = classification;
        this.charge = new FailureCharge(policies, classification, inFlight, counts);
        this.backoff = new ReleaseBackoff(policies, counts, charge, routeFaultHold);
    }

    /**
     * @param exchange the failed delivery
     * @return whether this delivery spent its class's budget (then the message is acknowledged once the
     *     quarantine record commits); {@code true} too when the count is unknown, so nothing loops, except for a
     *     transient failure (the count is unknown when the journal cannot be read: the database is down, and a
     *     document must not be quarantined for that); {@code false} for a delivery cut short by this process stopping,
     *     for one whose service could not be reached and for a fault of our own route
     */
    public boolean budgetSpent(Exchange exchange) {
        return charge.budgetSpent(exchange);
    }

    /**
     * @param exchange a failed delivery
     * @return whether the failure is the document's own, so that it spends a delivery of its class's budget: false
     *     for a delivery cut short by this process stopping, for one whose service could not be reached and for a
     *     fault of our own route
     */
    public boolean chargedToDocument(Exchange exchange) {
        return charge.chargedToDocument(exchange);
    }

    /**
     * Decides, sets {@link PipelineKeys#DISPOSITION} ({@link #QUARANTINE} or {@link #RELEASE}) and, for a release,
     * {@link PipelineKeys#BACKOFF} (the class's back-off before the next delivery, jitter applied; for a
     * {@link TransientException} with a {@link TransientException#retryAfter() Retry-After}, at least that, capped
     * at the class's {@code backoff-max-ms}), and logs one
     * line: identity, stage, class, reason, delivery n of max; never document text.
     *
     * @param exchange the failed delivery
     */
    public void decide(Exchange exchange) {
        Classification c = classification.of(exchange);
        if (charge.stoppedByShutdown(exchange)) {
            // the class's back-off still applies: a receive already waiting in this process (an SQS long poll)
            // must not take the message straight back
            Duration delay = backoff.transientBackoff(exchange);
            exchange.setProperty(PipelineKeys.DISPOSITION, RELEASE);
            exchange.setProperty(PipelineKeys.BACKOFF, delay);
            LOG.info("{} cut short at {} by the shutdown; delivery {} back on the queue in {} ms, never quarantined"
                    + " for it", DeliveryCounts.who(exchange), exchange.getProperty(PipelineKeys.STAGE, String.class),
                    exchange.getProperty(PipelineKeys.DELIVERY_COUNT), delay.toMillis());
            return;
        }
        if (!c.errorClass().chargedToDocument()) {
            exchange.setProperty(PipelineKeys.DISPOSITION, RELEASE);
            exchange.setProperty(PipelineKeys.BACKOFF, backoff.routeFaultHold());
            LOG.info("{} failed at {}: {}/{} ({}), a fault of our own route, not the document's; delivery {} back on"
                    + " the queue in {} ms, never quarantined for it, no retry spent", DeliveryCounts.who(exchange),
                    exchange.getProperty(PipelineKeys.STAGE, String.class), c.errorClass().code(), c.reasonCode(),
                    c.cause().getClass().getSimpleName(), exchange.getProperty(PipelineKeys.DELIVERY_COUNT),
                    backoff.routeFaultHold().toMillis());
            return;
        }
        boolean quarantine = budgetSpent(exchange);
        ServiceUnreachableException down = ServiceUnreachableException.in(c.cause());
        exchange.setProperty(PipelineKeys.DISPOSITION, quarantine ? QUARANTINE : RELEASE);
        Duration delay = quarantine ? Duration.ZERO : backoff.afterFailure(c, exchange);
        if (!quarantine) {
            exchange.setProperty(PipelineKeys.BACKOFF, delay);
        }
        LOG.info("{} failed at {}: {}/{} ({}); {}; {}", DeliveryCounts.who(exchange),
                exchange.getProperty(PipelineKeys.STAGE, String.class), c.errorClass().code(), c.reasonCode(),
                c.cause().getClass().getSimpleName(),
                deliveryOf(exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class),
                        charge.policy(exchange).maxDeliveries(), c.errorClass()),
                quarantine ? "quarantining" : "back on the queue in " + delay.toMillis() + " ms"
                        + (down == null ? "" : ", never quarantined for " + down.setting() + " being unreachable"));
    }

    /**
     * @param count the delivery's count, or null when unknown
     * @param max the deliveries the class allows
     * @param errorClass the failure's class
     * @return the log's words for where the delivery stands against its class's budget: {@code delivery 2 of 3};
     *     {@code delivery 5, past ambiguous_parse's 2} when earlier deliveries failed under another class (their
     *     count carries over); {@code delivery count unknown, ambiguous_parse allows 2}
     */
    static String deliveryOf(Integer count, int max, ErrorClass errorClass) {
        if (count == null) {
            return "delivery count unknown, " + errorClass.code() + " allows " + max;
        }
        return count <= max ? "delivery " + count + " of " + max
                : "delivery " + count + ", past " + errorClass.code() + "'s " + max;
    }

    /**
     * For a delivery whose quarantine record could not be committed (the store is unreachable): the message
     * goes back to the broker as after a transient failure, so this gives the transient class's back-off at
     * this delivery count, and logs one line.
     *
     * <p>It marks the delivery {@link PipelineKeys#RECORD_NOT_WRITTEN}, so that its release closes its attempt as
     * the same delivery to be tried again ({@link AttemptJournal#closeRecordNotWritten}): where the journal counts
     * deliveries (Kafka, RabbitMQ) the next one is not counted as another, and the document is not charged a delivery
     * its record would then show for the outage.
     *
     * @param exchange the delivery, with the write failure in {@link Exchange#EXCEPTION_CAUGHT}; afterwards
     *     {@link PipelineKeys#BACKOFF} holds the back-off before the redelivery
     */
    public void recordNotWritten(Exchange exchange) {
        exchange.setProperty(PipelineKeys.RECORD_NOT_WRITTEN, Boolean.TRUE);
        Duration delay = backoff.transientBackoff(exchange);
        exchange.setProperty(PipelineKeys.BACKOFF, delay);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        LOG.warn("{}: quarantine record not written ({}); not acknowledged, back on the queue in {} ms",
                DeliveryCounts.who(exchange), failure == null ? "unknown" : failure.getClass().getSimpleName(), delay.toMillis());
    }
}
