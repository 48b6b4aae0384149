package org.ingestquarantine.delivery;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.RedeliveryPolicy;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
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
 */
public final class FailureDisposition {

    /** Value of {@link PipelineKeys#DISPOSITION} when the budget is spent. */
    public static final String QUARANTINE = "quarantine";
    /** Value of {@link PipelineKeys#DISPOSITION} when the broker should redeliver. */
    public static final String RELEASE = "release";

    private static final Logger LOG = LoggerFactory.getLogger(FailureDisposition.class);
    /**
     * Exchange property set once the broker's count could not be read for this delivery: it is not asked again
     * (each ask waits out the pool's connection timeout while the database is down).
     */
    private static final String COUNT_UNREAD = "iqDeliveryCountUnread";

    private final RedeliveryPolicies policies;
    private final ClassifyFailure classification;
    private final InFlightAttempts inFlight;
    /** Counts a delivery whose count is not on the exchange yet (Kafka, failed before admission); may be null. */
    private final BrokerAdapter broker;
    private final Duration routeFaultHold;

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
        this.policies = policies;
        this.classification = classification;
        this.inFlight = inFlight;
        this.broker = broker;
        this.routeFaultHold = routeFaultHold;
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
        if (!chargedToDocument(exchange)) {
            return false;
        }
        Integer count = chargedCount(exchange);
        if (count == null) {
            return classification.of(exchange).errorClass() != ErrorClass.TRANSIENT;
        }
        return policy(exchange).isExhausted(count);
    }

    /**
     * @param exchange a failed delivery
     * @return whether the failure is the document's own, so that it spends a delivery of its class's budget: false
     *     for a delivery cut short by this process stopping, for one whose service could not be reached and for a
     *     fault of our own route
     */
    public boolean chargedToDocument(Exchange exchange) {
        Classification c = classification.of(exchange);
        return !stoppedByShutdown(exchange) && ServiceUnreachableException.in(c.cause()) == null
                && c.errorClass().chargedToDocument();
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
        if (stoppedByShutdown(exchange)) {
            // the class's back-off still applies: a receive already waiting in this process (an SQS long poll)
            // must not take the message straight back
            Duration delay = policies.forClass(ErrorClass.TRANSIENT).backoffBefore(count(exchange));
            exchange.setProperty(PipelineKeys.DISPOSITION, RELEASE);
            exchange.setProperty(PipelineKeys.BACKOFF, delay);
            LOG.info("{} cut short at {} by the shutdown; delivery {} back on the queue in {} ms, never quarantined"
                    + " for it", who(exchange), exchange.getProperty(PipelineKeys.STAGE, String.class),
                    exchange.getProperty(PipelineKeys.DELIVERY_COUNT), delay.toMillis());
            return;
        }
        if (!c.errorClass().chargedToDocument()) {
            exchange.setProperty(PipelineKeys.DISPOSITION, RELEASE);
            exchange.setProperty(PipelineKeys.BACKOFF, routeFaultHold);
            LOG.info("{} failed at {}: {}/{} ({}), a fault of our own route, not the document's; delivery {} back on"
                    + " the queue in {} ms, never quarantined for it, no retry spent", who(exchange),
                    exchange.getProperty(PipelineKeys.STAGE, String.class), c.errorClass().code(), c.reasonCode(),
                    c.cause().getClass().getSimpleName(), exchange.getProperty(PipelineKeys.DELIVERY_COUNT),
                    routeFaultHold.toMillis());
            return;
        }
        boolean quarantine = budgetSpent(exchange);
        ServiceUnreachableException down = ServiceUnreachableException.in(c.cause());
        exchange.setProperty(PipelineKeys.DISPOSITION, quarantine ? QUARANTINE : RELEASE);
        Integer charged = chargedCount(exchange);
        Duration delay = quarantine ? Duration.ZERO
                : atLeastRetryAfter(c, policy(exchange).backoffBefore(charged == null ? 1 : charged));
        if (!quarantine) {
            exchange.setProperty(PipelineKeys.BACKOFF, delay);
        }
        LOG.info("{} failed at {}: {}/{} ({}); {}; {}", who(exchange),
                exchange.getProperty(PipelineKeys.STAGE, String.class), c.errorClass().code(), c.reasonCode(),
                c.cause().getClass().getSimpleName(),
                deliveryOf(exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class),
                        policy(exchange).maxDeliveries(), c.errorClass()),
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
        Duration delay = policies.forClass(ErrorClass.TRANSIENT).backoffBefore(count(exchange));
        exchange.setProperty(PipelineKeys.BACKOFF, delay);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        LOG.warn("{}: quarantine record not written ({}); not acknowledged, back on the queue in {} ms", who(exchange),
                failure == null ? "unknown" : failure.getClass().getSimpleName(), delay.toMillis());
    }

    /**
     * @return {@code backoff}, or the wait the failure's {@link TransientException#retryAfter() Retry-After} asked
     *     for when that is longer, capped at the class's {@code backoff-max-ms}
     */
    private Duration atLeastRetryAfter(Classification c, Duration backoff) {
        if (!(c.cause() instanceof TransientException t) || t.retryAfter().isEmpty()) {
            return backoff;
        }
        Duration asked = t.retryAfter().get();
        Duration max = policies.forClass(c.errorClass()).maxBackoff();
        Duration wait = asked.compareTo(max) > 0 ? max : asked;
        return wait.compareTo(backoff) > 0 ? wait : backoff;
    }

    /** @return whether this process stopping cut the delivery short */
    private boolean stoppedByShutdown(Exchange exchange) {
        if (inFlight.isAbandoned(exchange)) {
            return true;
        }
        for (Throwable t = classification.of(exchange).cause(); t != null; t = t.getCause()) {
            if (t instanceof ShutdownException) {
                return true;
            }
        }
        return false;
    }

    private RedeliveryPolicy policy(Exchange exchange) {
        return policies.forClass(classification.of(exchange).errorClass());
    }

    private int count(Exchange exchange) {
        Integer count = knownCount(exchange);
        return count == null ? 1 : count;
    }

    /**
     * @return the delivery count less the earlier deliveries a route fault released or a storm pause handed back, at
     *     least 1; null if unknown
     */
    private Integer chargedCount(Exchange exchange) {
        Integer count = knownCount(exchange);
        if (count == null) {
            return null;
        }
        int uncharged = exchange.getProperty(PipelineKeys.PIPELINE_FAULTS, 0, Integer.class)
                + exchange.getProperty(PipelineKeys.STORM_PAUSES, 0, Integer.class);
        return Math.max(1, count - uncharged);
    }

    /**
     * @return the delivery count on the exchange; if there is none yet (Kafka, failed before admission), the
     *     broker's, read once per delivery and kept on the exchange; null if it cannot be read (database
     *     unreachable: not asked again for this delivery) or there is no key
     */
    private Integer knownCount(Exchange exchange) {
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        if (count != null || broker == null || exchange.getProperty(PipelineKeys.DELIVERY_KEY) == null
                || exchange.getProperty(COUNT_UNREAD) != null) {
            return count;
        }
        try {
            count = broker.deliveryCount(exchange);
        } catch (RuntimeException e) {
            LOG.warn("{}: delivery count not read ({})", who(exchange), e.getClass().getSimpleName());
            exchange.setProperty(COUNT_UNREAD, Boolean.TRUE);
            return null;
        }
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, count);
        return count;
    }

    private static String who(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        return message == null ? LogSafe.identity(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class))
                : LogSafe.identity(message.source()) + "/" + LogSafe.identity(message.docId());
    }
}
