package org.ingestquarantine.broker;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClassifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pauses the consumer while the database (quarantine store and index) cannot be reached, instead of
 * burning the messages' deliveries (DESIGN.md §2): a failure whose reason says the database is down
 * suspends the consumer route, a probe retries every {@code probeInterval}, and the route resumes when
 * the probe succeeds. The broker's own dead-letter backstop is for when even this fails.
 */
public final class ConsumerCircuitBreaker implements AutoCloseable {

    /** Failure reasons that open the breaker. */
    public static final Set<String> DATABASE_REASONS = Set.of("db_unavailable", "db_error", "quarantine_unavailable");

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerCircuitBreaker.class);

    private final CamelContext context;
    private final String routeId;
    private final BooleanSupplier databaseReachable;
    private final ErrorClassifier classifier;
    private final Duration probeInterval;
    private final AtomicBoolean open = new AtomicBoolean();
    private final ExecutorService prober = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "consumer-circuit-breaker");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param context the Camel context
     * @param routeId the consumer route to suspend
     * @param databaseReachable probe: true when the database answers
     * @param classifier gives a failure's reason
     * @param probeInterval time between probes
     */
    public ConsumerCircuitBreaker(CamelContext context, String routeId, BooleanSupplier databaseReachable,
                                  ErrorClassifier classifier, Duration probeInterval) {
        this.context = context;
        this.routeId = routeId;
        this.databaseReachable = databaseReachable;
        this.classifier = classifier;
        this.probeInterval = probeInterval;
    }

    /**
     * Opens the breaker when the delivery failed because the database is unreachable.
     *
     * @param exchange a failed delivery
     */
    public void onFailure(Exchange exchange) {
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (failure == null || !DATABASE_REASONS.contains(classifier.classify(failure).reasonCode())) {
            return;
        }
        if (open.compareAndSet(false, true)) {
            prober.submit(this::pauseUntilReachable);
        }
    }

    /** @return whether the consumer is paused */
    public boolean isOpen() {
        return open.get();
    }

    private void pauseUntilReachable() {
        try {
            LOG.warn("the database is unreachable; pausing route {} and probing every {} ms", routeId, probeInterval.toMillis());
            context.getRouteController().suspendRoute(routeId);
            while (!databaseReachable.getAsBoolean()) {
                Thread.sleep(probeInterval.toMillis());
            }
            context.getRouteController().resumeRoute(routeId);
            LOG.info("the database answers again; route {} resumed", routeId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.error("could not pause or resume route {}: {}", routeId, e.toString());
        } finally {
            open.set(false);
        }
    }

    @Override
    public void close() {
        prober.shutdownNow();
    }
}
