package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.camel.Exchange;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the consumer while the database (quarantine store, index, attempt journal) or the payload store (where a
 * quarantine puts the payload and stack trace) cannot be reached,
 * instead of burning the messages' deliveries on failures that waiting will cure (DESIGN.md §2).
 *
 * <p>A failure whose reason names the database opens the breaker. While it is open, every delivery
 * waits at the entrance of the consumer route ({@link #awaitClosed}), before any work and before its
 * attempt is journalled, probing the database every {@code probeInterval}; the first successful probe
 * closes it. Waiting holds the consumer threads, so the broker stops handing out messages. A message
 * held longer than the broker's visibility timeout (SQS) comes back later; the broker's own
 * dead-letter backstop remains for outages longer than that.
 */
public final class ConsumerCircuitBreaker {

    /** Failure reasons that open the breaker. */
    public static final Set<String> DATABASE_REASONS = Set.of("db_unavailable", "db_error", "quarantine_unavailable");

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerCircuitBreaker.class);

    private final BooleanSupplier databaseReachable;
    private final ClassifyFailure classification;
    private final Duration probeInterval;
    private volatile boolean open;

    /**
     * @param databaseReachable probe: true when the database and the payload store answer; must not throw
     * @param classification gives a failure's reason
     * @param probeInterval time between probes while open (property {@code db.probe-interval-ms})
     */
    public ConsumerCircuitBreaker(BooleanSupplier databaseReachable, ClassifyFailure classification,
                                  Duration probeInterval) {
        this.databaseReachable = databaseReachable;
        this.classification = classification;
        this.probeInterval = probeInterval;
    }

    /**
     * Opens the breaker when the delivery failed because the database is unreachable.
     *
     * @param exchange a failed delivery
     */
    public void onFailure(Exchange exchange) {
        if (DATABASE_REASONS.contains(classification.of(exchange).reasonCode())) {
            onStoreFailure();
        }
    }

    /** Opens the breaker: a quarantine record could not be written, so the store is taken to be unreachable. */
    public void onStoreFailure() {
        if (!open) {
            open = true;
            LOG.warn("the database or the payload store is unreachable; holding the consumer and probing every {} ms",
                    probeInterval.toMillis());
        }
    }

    /**
     * Returns at once while closed; while open, blocks until a probe succeeds.
     *
     * @throws InterruptedException when the consumer is being stopped
     */
    public void awaitClosed() throws InterruptedException {
        while (open) {
            synchronized (this) {
                if (!open) {
                    return;
                }
                if (databaseReachable.getAsBoolean()) {
                    open = false;
                    LOG.info("the database and the payload store answer again; consuming");
                    return;
                }
                wait(probeInterval.toMillis());
            }
        }
    }

    /** @return whether the consumer is being held */
    public boolean isOpen() {
        return open;
    }
}
