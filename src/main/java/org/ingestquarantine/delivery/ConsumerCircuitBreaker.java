package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.PipelineKeys;
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
 *
 * <p><b>A fault of our own route</b> ({@link ErrorClass#PIPELINE_FAULT}: an expression that cannot evaluate, a
 * missing bean or method) holds the consumer too, but nothing can be probed from outside: the route itself is the
 * probe. The consumer's entrance ({@link #admit}) holds every delivery for {@code routeFaultHold}, then lets ONE
 * through (half-open); if it ends in anything but another route fault, the breaker closes, else it holds for
 * another period. So a fault that depends on the document, or a route fixed by a reload, recovers on its own,
 * while a route that stays broken costs one delivery per period. Each fault is one WARN line naming the step, and it counts in {@link PipelineMetrics#PIPELINE_FAULTS}; {@link PipelineMetrics#PIPELINE_FAULT_HELD}
 * is 1 while held.
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
    private final Duration routeFaultHold;
    private final PipelineMetrics metrics;
    /** The route fault holding the consumer, null when none does (guarded by this). */
    private RouteFault routeFault;
    /** System.nanoTime() until which the route fault holds every delivery (guarded by this). */
    private long faultHeldUntil;
    /** Whether the half-open probe delivery is under way (guarded by this). */
    private boolean probing;
    /** True while this process is stopping: a route fault's hold then lets every delivery go, to be handed back. */
    private volatile BooleanSupplier stopping = () -> false;

    /**
     * A fault of our own route, as the consumer's hold reports it.
     *
     * @param stage the step id the delivery was in ({@link PipelineKeys#STAGE}: {@code receive} before the first)
     * @param reason the classification's reason, e.g. {@code expression_failed}
     * @param type the simple name of the exception that decided it
     */
    public record RouteFault(String stage, String reason, String type) {

        /** @return one line for an operator: where, what, and what to do */
        public String describe() {
            return "step " + stage + ": " + reason + " (" + type + ")";
        }
    }
    /**
     * @param databaseReachable probe: true when the database and the payload store answer; must not throw
     * @param classification gives a failure's reason
     * @param probeInterval time between probes while open (property {@code db.probe-interval-ms})
     * @param routeFaultHold how long a fault of our own route holds the consumer before one delivery probes the
     *     routes again (property {@code pipeline-fault.hold-ms})
     * @param metrics counts route faults and shows the hold
     */
    public ConsumerCircuitBreaker(BooleanSupplier databaseReachable, ClassifyFailure classification,
                                  Duration probeInterval, Duration routeFaultHold, PipelineMetrics metrics) {
        this.databaseReachable = databaseReachable;
        this.classification = classification;
        this.probeInterval = probeInterval;
        this.routeFaultHold = routeFaultHold;
        this.metrics = metrics;
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
     * Lets a route fault's hold go while {@code stopping} is true: a delivery waiting in {@link #admit} goes on at
     * once (not as the probe), and the delivery guard hands it back unworked, so a stop is not held up by the hold.
     *
     * @param stopping true while this process is stopping (the delivery guard's {@link InFlightAttempts#isStopping})
     */
    public void letGoWhen(BooleanSupplier stopping) {
        this.stopping = stopping;
    }

    /**
     * Opens the breaker when the delivery failed because the database, or a registered service, is unreachable.
     *
     * @param exchange a failed delivery
     */
    public void onFailure(Exchange exchange) {
        Classification c = classification.of(exchange);
        if (c.errorClass() == ErrorClass.PIPELINE_FAULT) {
            onRouteFault(exchange, c);
            return;
        }
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

    private synchronized void onRouteFault(Exchange exchange, Classification c) {
        RouteFault fault = new RouteFault(exchange.getProperty(PipelineKeys.STAGE, "unknown", String.class),
                c.reasonCode(), c.cause().getClass().getSimpleName());
        metrics.pipelineFault(fault.stage(), fault.reason());
        metrics.pipelineFaultHeld(true);
        faultHeldUntil = System.nanoTime() + routeFaultHold.toNanos();
        // the first fault, and each probe that meets one again: one line each, never one per held delivery
        if (routeFault == null || probing) {
            LOG.warn("pipeline fault: {}; no document is charged for it: its delivery is released, and the consumer"
                    + " held {} ms, then one delivery probes the routes; a route fault does not fix itself: fix the"
                    + " route file and restart", fault.describe(), routeFaultHold.toMillis());
        }
        routeFault = fault;
        probing = false;
    }

    /**
     * The consumer's entrance: {@link #awaitClosed}, then, while a fault of our own route holds the consumer,
     * waits out its hold; once it has passed, lets one delivery through as the probe and holds the others until
     * that one ends: in anything but another route fault, the hold ends; in one, it starts again. While this
     * process is stopping ({@link #letGoWhen}) it holds nothing: the delivery goes on, not as the probe.
     *
     * @param exchange the delivery about to start
     * @throws InterruptedException when the consumer is being stopped
     */
    public void admit(Exchange exchange) throws InterruptedException {
        awaitClosed();
        synchronized (this) {
            while (routeFault != null && !stopping.getAsBoolean()) {
                long left = faultHeldUntil - System.nanoTime();
                if (!probing && left <= 0) {
                    probing = true;
                    exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                        @Override
                        public void onDone(Exchange done) {
                            probed(done);
                        }
                    });
                    return;
                }
                // never longer than a probe interval: a stop is seen within one
                wait(Math.max(1, Math.min(probeInterval.toMillis(), probing ? Long.MAX_VALUE : left / 1_000_000)));
            }
        }
    }

    private synchronized void probed(Exchange done) {
        if (!probing) {
            return; // the probe met a route fault again: onRouteFault started another hold
        }
        probing = false;
        Classification c = done.getProperty(PipelineKeys.FAILURE, Classification.class);
        if (c == null || c.errorClass() != ErrorClass.PIPELINE_FAULT) {
            LOG.info("the routes ran a delivery through without a pipeline fault ({}); consuming", routeFault.describe());
            routeFault = null;
            metrics.pipelineFaultHeld(false);
        }
        notifyAll();
    }

    /** @return the fault of our own route holding the consumer now, if one does */
    public synchronized Optional<RouteFault> routeFault() {
        return Optional.ofNullable(routeFault);
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
