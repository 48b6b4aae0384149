package org.ingestquarantine.delivery;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.RedeliveryPolicy;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, for a failed delivery, between quarantine (the class's budget is spent) and release (the
 * broker redelivers it after the class's back-off). Both the route configuration's {@code handled}
 * predicate and the failure route ask the same question here, so they cannot disagree.
 *
 * <p>The delivery count has one meaning everywhere: deliveries so far counting the current one, from
 * {@link PipelineKeys#DELIVERY_COUNT}. A class with {@code retries} r is quarantined on delivery r + 1.
 */
public final class FailureDisposition {

    /** Value of {@link PipelineKeys#DISPOSITION} when the budget is spent. */
    public static final String QUARANTINE = "quarantine";
    /** Value of {@link PipelineKeys#DISPOSITION} when the broker should redeliver. */
    public static final String RELEASE = "release";

    private static final Logger LOG = LoggerFactory.getLogger(FailureDisposition.class);

    private final RedeliveryPolicies policies;
    private final ErrorClassifier classifier;

    /**
     * @param policies one policy per class
     * @param classifier gives the reason for the log line
     */
    public FailureDisposition(RedeliveryPolicies policies, ErrorClassifier classifier) {
        this.policies = policies;
        this.classifier = classifier;
    }

    /**
     * @param exchange the failed delivery
     * @param errorClass the class its failure belongs to
     * @return whether this delivery spent the class's budget (then the message is acknowledged after the
     *     quarantine record commits); {@code true} too when the count is unknown, so nothing loops
     */
    public boolean exhausted(Exchange exchange, ErrorClass errorClass) {
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        return count == null || policies.forClass(errorClass).isExhausted(count);
    }

    /**
     * For a delivery whose quarantine record could not be committed (the store is unreachable): the message
     * goes back to the broker as after a transient failure, so this gives the transient class's back-off at
     * this delivery count, and logs one line.
     *
     * @param exchange the delivery, with the write failure in {@link Exchange#EXCEPTION_CAUGHT}
     * @return the back-off before the redelivery
     */
    public Duration recordNotWritten(Exchange exchange) {
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        Duration delay = policies.forClass(ErrorClass.TRANSIENT).backoffBefore(count == null ? 1 : count);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        LOG.warn("{}: quarantine record not written ({}); not acknowledged, back on the queue in {} ms",
                message == null ? exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class)
                        : message.source() + "/" + message.docId(),
                failure == null ? "unknown" : failure.getClass().getSimpleName(), delay.toMillis());
        return delay;
    }

    /**
     * Sets {@link PipelineKeys#DISPOSITION} and logs one line (identity, stage, class, reason, delivery n of
     * max; never document text).
     *
     * @param exchange the failed delivery, with {@link PipelineKeys#ERROR_CLASS} set
     * @return the back-off before redelivery, or {@link Duration#ZERO} when quarantining
     */
    public Duration decide(Exchange exchange) {
        ErrorClass errorClass = exchange.getProperty(PipelineKeys.ERROR_CLASS, ErrorClass.class);
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        Classification c = classifier.classify(failure == null ? new IllegalStateException("no exception") : failure);
        if (errorClass == null) {
            errorClass = c.errorClass();
            exchange.setProperty(PipelineKeys.ERROR_CLASS, errorClass);
        }
        RedeliveryPolicy policy = policies.forClass(errorClass);
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        boolean quarantine = exhausted(exchange, errorClass);
        exchange.setProperty(PipelineKeys.DISPOSITION, quarantine ? QUARANTINE : RELEASE);
        Duration delay = quarantine ? Duration.ZERO : policy.backoffBefore(count);
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        String who = message == null ? exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class)
                : message.source() + "/" + message.docId();
        LOG.info("{} failed at {}: {}/{} ({}); delivery {} of {}; {}", who,
                exchange.getProperty(PipelineKeys.STAGE, String.class), errorClass.code(), c.reasonCode(),
                c.cause().getClass().getSimpleName(), count, policy.maxDeliveries(),
                quarantine ? "quarantining" : "back on the queue in " + delay.toMillis() + " ms");
        return delay;
    }
}
