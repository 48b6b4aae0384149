package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.RedeliveryPolicy;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.failure.ShutdownException;

/**
 * Whether a failed delivery is charged to its document, and whether it spent its class's budget
 * ({@link FailureDisposition#budgetSpent}, {@link FailureDisposition#chargedToDocument}): the one answer the route
 * configuration's {@code handled} and the failure route both get. Thread-safe.
 */
final class FailureCharge {

    private final RedeliveryPolicies policies;
    private final ClassifyFailure classification;
    private final InFlightAttempts inFlight;
    private final DeliveryCounts counts;

    FailureCharge(RedeliveryPolicies policies, ClassifyFailure classification, InFlightAttempts inFlight,
                  DeliveryCounts counts) {
        this.policies = policies;
        this.classification = classification;
        this.inFlight = inFlight;
        this.counts = counts;
    }

    /** @see FailureDisposition#budgetSpent */
    boolean budgetSpent(Exchange exchange) {
        if (!chargedToDocument(exchange)) {
            return false;
        }
        Integer count = counts.charged(exchange);
        if (count == null) {
            return classification.of(exchange).errorClass() != ErrorClass.TRANSIENT;
        }
        return policy(exchange).isExhausted(count);
    }

    /** @see FailureDisposition#chargedToDocument */
    boolean chargedToDocument(Exchange exchange) {
        Classification c = classification.of(exchange);
        return !stoppedByShutdown(exchange) && ServiceUnreachableException.in(c.cause()) == null
                && c.errorClass().chargedToDocument();
    }

    /** @return whether this process stopping cut the delivery short */
    boolean stoppedByShutdown(Exchange exchange) {
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

    /** @return the redelivery policy of the failure's class */
    RedeliveryPolicy policy(Exchange exchange) {
        return policies.forClass(classification.of(exchange).errorClass());
    }
}
