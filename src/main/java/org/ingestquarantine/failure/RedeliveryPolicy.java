package org.ingestquarantine.failure;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often, and how far apart, one error class is redelivered by the broker.
 *
 * <p>{@code retries} counts redeliveries AFTER the first delivery, with the meaning of Camel's
 * {@code maximumRedeliveries}: a document of this class is delivered at most {@code retries + 1} times,
 * then quarantined. 0 means "quarantine on the first failure".
 *
 * <p>The delay before redelivery {@code n} (1-based) is {@code initialBackoff × multiplier^(n-1)},
 * capped at {@code maxBackoff}, then spread by ±{@code jitter} (a fraction, 0.2 = ±20 %).
 *
 * @param retries redeliveries after the first delivery, ≥ 0
 * @param initialBackoff delay before the first redelivery, ≥ 0
 * @param multiplier growth factor per redelivery, ≥ 1.0
 * @param maxBackoff cap on any single delay, ≥ initialBackoff
 * @param jitter fraction of random spread, 0.0 to 1.0
 */
public record RedeliveryPolicy(int retries, Duration initialBackoff, double multiplier, Duration maxBackoff, double jitter) {

    public RedeliveryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (retries < 0) {
            throw new IllegalArgumentException("retries must be >= 0, was " + retries);
        }
        if (multiplier < 1.0) {
            throw new IllegalArgumentException("multiplier must be >= 1.0, was " + multiplier);
        }
        if (jitter < 0.0 || jitter > 1.0) {
            throw new IllegalArgumentException("jitter must be within 0.0..1.0, was " + jitter);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is below initialBackoff " + initialBackoff);
        }
    }

    /** @return a policy that never redelivers */
    public static RedeliveryPolicy none() {
        return new RedeliveryPolicy(0, Duration.ZERO, 1.0, Duration.ZERO, 0.0);
    }

    /** @return total deliveries this class may have: {@code retries + 1} */
    public int maxDeliveries() {
        return retries + 1;
    }

    /**
     * @param deliveryCount deliveries so far, counting the current one (1 on the first delivery)
     * @return whether this delivery was the last one the budget allows
     */
    public boolean isExhausted(int deliveryCount) {
        return deliveryCount >= maxDeliveries();
    }

    /**
     * @param redelivery the 1-based number of the redelivery about to be scheduled
     * @return the delay before it, jitter applied
     */
    public Duration backoffBefore(int redelivery) {
        double base = initialBackoff.toMillis() * Math.pow(multiplier, Math.max(0, redelivery - 1));
        double capped = Math.min(base, maxBackoff.toMillis());
        double spread = jitter == 0.0 ? 0.0 : ThreadLocalRandom.current().nextDouble(-jitter, jitter);
        return Duration.ofMillis(Math.max(0L, Math.round(capped * (1.0 + spread))));
    }
}
