package org.ingestquarantine.delivery;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.TransientException;

/**
 * How long a released delivery waits before the broker redelivers it ({@link FailureDisposition}): its class's
 * back-off at its charged count, at least what a {@link TransientException#retryAfter() Retry-After} asked for
 * (capped at the class's {@code backoff-max-ms}); the transient back-off for a delivery cut short by the shutdown
 * or whose quarantine record was not written; the route-fault hold for a fault of our own route. Thread-safe.
 *
 * @param routeFaultHold the back-off of a message a fault of our own route released (the consumer's hold)
 */
record ReleaseBackoff(RedeliveryPolicies policies, DeliveryCounts counts, FailureCharge charge,
                      Duration routeFaultHold) {

    /** @return the transient class's back-off at the delivery's count (1 if unknown) */
    Duration transientBackoff(Exchange exchange) {
        return policies.forClass(ErrorClass.TRANSIENT).backoffBefore(counts.count(exchange));
    }

    /**
     * @param c the failure's classification
     * @return its class's back-off at the charged count (1 if unknown), or the wait its Retry-After asked for when
     *     that is longer, capped at the class's {@code backoff-max-ms}
     */
    Duration afterFailure(Classification c, Exchange exchange) {
        Integer charged = counts.charged(exchange);
        Duration backoff = charge.policy(exchange).backoffBefore(charged == null ? 1 : charged);
        if (!(c.cause() instanceof TransientException t) || t.retryAfter().isEmpty()) {
            return backoff;
        }
        Duration asked = t.retryAfter().get();
        Duration max = policies.forClass(c.errorClass()).maxBackoff();
        Duration wait = asked.compareTo(max) > 0 ? max : asked;
        return wait.compareTo(backoff) > 0 ? wait : backoff;
    }
}
