package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the consumer while the database (quarantine store, index, attempt journal) or the payload store (where a
 * quarantine puts the payload and stack trace) cannot be reached,
 * instead of burning the messages' deliveries on failures that waiting will cure (DESIGN.md §2); and so too while a
 * service registered with {@link #holdFor} (the embedding service, {@code embed.openai.url}) cannot be reached.
 *
 * <p>A failure whose reason names the database opens the breaker, as does a {@link ServiceUnreachableException}
 * of a registered service. While it is open, every delivery
 * waits at the entrance of the consumer route ({@link #awaitClosed}), before any work and before its
 * attempt is journalled, probing what is down (the database, or the service) every {@code probeInterval}; it
 * closes once every probe of what is down has succeeded. Each opening is one WARN line, each closing one INFO. Waiting holds the consumer threads, so the broker stops handing out messages. A message
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
    /** Whether the database or the payload store is down (guarded by this). */
    private boolean storeDown;
    /** Probe of each service that can hold the consumer, by the property naming it. */
    private final Map<String, BooleanSupplier> services = new ConcurrentHashMap<>();
    /** The services down now, by property, each with the name its log lines give it. */
    private final Map<String, String> servicesDown = new ConcurrentHashMap<>();

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
     * Lets a service hold the consumer: a {@link ServiceUnreachableException} naming {@code setting} opens the
     * breaker, and {@code answers} is then probed until it returns true.
     *
     * @param setting the property naming the service, as its exceptions name it ({@link ServiceUnreachableException#setting()})
     * @param answers probe: true when the service answers; must not throw
     */
    public void holdFor(String setting, BooleanSupplier answers) {
        services.put(setting, answers);
    }

    /**
     * Opens the breaker when the delivery failed because the database, or a registered service, is unreachable.
     *
     * @param exchange a failed delivery
     */
    public void onFailure(Exchange exchange) {
        Classification c = classification.of(exchange);
        if (DATABASE_REASONS.contains(c.reasonCode())) {
            onStoreFailure();
            return;
        }
        ServiceUnreachableException down = ServiceUnreachableException.in(c.cause());
        if (down != null && services.containsKey(down.setting())) {
            synchronized (this) {
                if (servicesDown.putIfAbsent(down.setting(), down.service()) == null) {
                    LOG.warn("{} cannot be reached ({}); holding the consumer and probing it every {} ms",
                            down.service(), down.reasonCode(), probeInterval.toMillis());
                }
                open = true;
            }
        }
    }

    /** Opens the breaker: a quarantine record could not be written, so the store is taken to be unreachable. */
    public synchronized void onStoreFailure() {
        if (!storeDown) {
            storeDown = true;
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
                if (storeDown && databaseReachable.getAsBoolean()) {
                    storeDown = false;
                    LOG.info("the database and the payload store answer again; consuming");
                }
                servicesDown.entrySet().removeIf(down -> {
                    boolean answers = services.get(down.getKey()).getAsBoolean();
                    if (answers) {
                        LOG.info("{} answers again; consuming", down.getValue());
                    }
                    return answers;
                });
                if (!storeDown && servicesDown.isEmpty()) {
                    open = false;
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
