package org.ingestquarantine.delivery;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failure-storm breaker (issue 23): when one fingerprint NEW to a source fails a share of that source's recent
 * deliveries (a parser regression, a source suddenly serving error pages), the source is paused in every consumer,
 * instead of its whole corpus being quarantined. It composes three parts: this consumer's windows of recent
 * deliveries ({@link FailureWindows}, fed by {@link #failed} and {@link #settled}), the pauses every process shares
 * in PostgreSQL ({@link SourcePauses}, which also judges whether a fingerprint is new) and the consumer's entrance
 * ({@link #admit}). Thresholds: {@link StormThresholds}, the {@code storm.*} properties.
 *
 * <p><b>What counts.</b> Every delivery of a configured source that ended: indexed, unchanged or skipped (a
 * success), or failed for a reason of the document's own ({@link FailureDisposition#chargedToDocument}: not a stop,
 * not a service the consumer is held for, not a fault of our own route) other than the database
 * ({@link ConsumerCircuitBreaker#DATABASE_REASONS}), with the fingerprint its quarantine record would carry. Each
 * consumer judges its own deliveries; a delivery of a paused source counts nowhere.
 *
 * <p><b>A storm</b> pauses the source when its fingerprint is new to it ({@link SourcePauses#trip}): one WARN line
 * with the source, the fingerprint, the share and the command that resumes it. The deliveries that failed before are
 * quarantined as every failure is, so the cohort is visible ({@code records --fingerprint F --source S}). A known
 * fingerprint (the source's usual failure) never pauses it.
 *
 * <p><b>While paused</b> (read every {@code storm.pause-cache-ms} by every consumer, so a pause anywhere reaches all
 * of them; restarts keep it): a delivery of the source is not worked on and not charged. {@link #admit} hands it back
 * for {@code storm.hand-back-ms} ({@link SourcePausedException}: released, its attempt closed as
 * {@link AttemptOutcome#STORM_PAUSED}, which no budget counts), or holds it on its consumer thread, its attempt live,
 * where a hand-back cannot let the other messages pass: on Kafka ({@link BrokerAdapter#releaseComesBackFirst}: the
 * partition waits behind the record either way) and on SQS at the queue's redrive count ({@link
 * BrokerAdapter#redriveAt}: one more hand-back would have SQS dead-letter it). Held deliveries go on once the source
 * is resumed and are handed back if the process stops. So on Kafka a pause holds the partitions its source's records
 * reach, and on SQS it becomes a pause of the queue once the source's messages have been handed back to their
 * redrive count: the queue, where a per-source pause cannot be had.
 *
 * <p><b>Resumed</b> ({@link SourcePauses#resume}: {@code storm resume --source S}), every consumer works on the
 * source again and judges it from an empty window; the storm's fingerprint stays new to the source (its records
 * never make it known), so it pauses the source again once it fills a window past the share again, and not before.
 */
public final class FailureStorm implements AutoCloseable {

    /** Known verdicts kept at most, (source, fingerprint) pairs: past it they are forgotten and asked again. */
    private static final int KNOWN_VERDICTS = 10_000;

    private static final Logger LOG = LoggerFactory.getLogger(FailureStorm.class);

    /**
     * What the breaker needs of the consumer it runs in.
     *
     * @param broker whether a hand-back lets others pass, and the broker's redrive count
     * @param inFlight whether this process is stopping
     * @param disposition whether a failure is the document's own
     * @param owner this process, as its attempts name it ({@link AttemptLease#owner()})
     */
    public record Consumer(BrokerAdapter broker, InFlightAttempts inFlight, FailureDisposition disposition,
                           String owner) {
        public Consumer {
            Objects.requireNonNull(broker, "broker");
            Objects.requireNonNull(inFlight, "inFlight");
            Objects.requireNonNull(disposition, "disposition");
            Objects.requireNonNull(owner, "owner");
        }
    }

    private final StormThresholds thresholds;
    private final SourcePauses pauses;
    private final Consumer consumer;
    private final PipelineMetrics metrics;
    private final Clock clock;
    private final FailureWindows windows;
    /** (source, fingerprint) known to the source, each until the storm beginning at which it would be new. */
    private final Map<String, Instant> known = new ConcurrentHashMap<>();
    private final ScheduledExecutorService reader;
    /** The open pauses as last read, by source. */
    private volatile Map<String, SourcePauses.Pause> paused = Map.of();
    private volatile boolean unreadable;

    private FailureStorm(StormThresholds thresholds, SourcePauses pauses, Consumer consumer, PipelineMetrics metrics,
                         Clock clock) {
        this.thresholds = Objects.requireNonNull(thresholds, "thresholds");
        this.pauses = Objects.requireNonNull(pauses, "pauses");
        this.consumer = Objects.requireNonNull(consumer, "consumer");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.windows = new FailureWindows(thresholds);
        this.reader = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "storm-pauses");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Reads the pauses now (a paused source stays paused across a restart) and then every
     * {@code storm.pause-cache-ms}; {@link #close()} stops the reading.
     *
     * @param thresholds the {@code storm.*} properties
     * @param pauses the pauses every process shares
     * @param consumer the consumer it runs in
     * @param metrics shows the pauses and counts the deliveries held back
     * @param clock when a failure ended
     * @return the running breaker
     */
    public static FailureStorm start(StormThresholds thresholds, SourcePauses pauses, Consumer consumer,
                                     PipelineMetrics metrics, Clock clock) {
        FailureStorm storm = new FailureStorm(thresholds, pauses, consumer, metrics, clock);
        storm.refresh();
        storm.reader.scheduleWithFixedDelay(storm::refresh, thresholds.pauseCache().toMillis(),
                thresholds.pauseCache().toMillis(), TimeUnit.MILLISECONDS);
        return storm;
    }

    /**
     * The consumer's entrance for an admitted delivery (after {@link DeliveryGuard#admit}): returns at once unless
     * its source is paused; then hands it back ({@link SourcePausedException}, {@link PipelineKeys#BACKOFF}
     * {@code storm.hand-back-ms}) or holds it until the source is resumed (see the class comment).
     *
     * @param exchange an admitted delivery
     * @throws SourcePausedException to hand the delivery back unworked
     * @throws ShutdownException when this process stops while the delivery is held
     */
    public void admit(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        SourcePauses.Pause pause = message == null ? null : paused.get(message.source());
        if (pause == null) {
            return;
        }
        metrics.stormHeldBack(pause.source());
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        boolean atRedrive = count != null && count >= consumer.broker().redriveAt();
        if (!consumer.broker().releaseComesBackFirst() && !atRedrive) {
            exchange.setProperty(PipelineKeys.BACKOFF, thresholds.handBack());
            LOG.debug("{}/{}: source paused; handed back for {} ms", LogSafe.identity(message.source()),
                    LogSafe.identity(message.docId()), thresholds.handBack().toMillis());
            throw new SourcePausedException(pause.source(), pause.fingerprint());
        }
        LOG.info("{}/{}: source paused; held here until it is resumed ({})", LogSafe.identity(message.source()),
                LogSafe.identity(message.docId()), atRedrive ? "a hand-back at delivery " + count
                        + " would have the broker dead-letter it" : "a hand-back would come back first");
        while (paused.containsKey(message.source())) {
            if (!consumer.inFlight().awaitStopping(thresholds.pauseCache())) {
                throw new ShutdownException("held while its source is paused; handed back unworked by the stop", null);
            }
        }
    }

    /**
     * Counts a failed delivery in its source's window (the failure route, after the disposition is decided); pauses
     * the source when that makes a storm of a fingerprint new to it. Never throws: a pause that cannot be written is
     * tried again at the next failure.
     *
     * @param exchange a failed delivery, its classification decided
     */
    public void failed(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        Classification c = exchange.getProperty(PipelineKeys.FAILURE, Classification.class);
        if (message == null || c == null || paused.containsKey(message.source())
                || !consumer.disposition().chargedToDocument(exchange)
                || ConsumerCircuitBreaker.DATABASE_REASONS.contains(c.reasonCode())) {
            return;
        }
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (failure == null) {
            failure = c.cause();
        }
        windows.failed(message.source(), new FailureWindows.Failure(ErrorFingerprint.of(failure), c.errorClass(),
                c.reasonCode(), clock.instant())).ifPresent(this::trip);
    }

    /**
     * Counts a delivery that ended well (indexed, unchanged, stale or skipped) in its source's window.
     *
     * @param source the delivery's source
     */
    public void settled(String source) {
        if (!paused.containsKey(source)) {
            windows.succeeded(source);
        }
    }

    /**
     * @param source a source
     * @return its open pause as this process last read it, if it is paused
     */
    public Optional<SourcePauses.Pause> pauseOf(String source) {
        return Optional.ofNullable(paused.get(source));
    }

    private void trip(Storm storm) {
        String pair = storm.source() + '\u0000' + storm.fingerprint();
        Instant knownUntil = known.get(pair);
        if (knownUntil != null && storm.began().isBefore(knownUntil)) {
            return;
        }
        SourcePauses.Trip trip;
        try {
            trip = pauses.trip(storm, consumer.owner(), thresholds.knownWithin());
        } catch (RuntimeException e) {
            LOG.warn("failure storm on source {} (fingerprint {}, {}% of {} deliveries), but its pause could not be"
                    + " written ({}); tried again at its next failure", LogSafe.identity(storm.source()),
                    storm.fingerprint(), storm.percent(), storm.deliveries(), e.getMessage());
            return;
        }
        switch (trip.verdict()) {
            case KNOWN -> {
                if (known.size() >= KNOWN_VERDICTS) {
                    known.clear();
                }
                known.put(pair, trip.knownUntil());
                LOG.debug("{}: fingerprint {} fails {}% of its deliveries but is known to it; not paused",
                        LogSafe.identity(storm.source()), storm.fingerprint(), storm.percent());
            }
            case PAUSED -> {
                seePaused(trip.pause());
                LOG.warn("failure storm: source {} paused in every consumer: fingerprint {} ({}/{}) failed {} of its"
                        + " last {} deliveries ({}%, {} {}), new to the source since {}; its deliveries are handed"
                        + " back unworked, not quarantined. The {} that failed are quarantined (bin/ingest-quarantine"
                        + " records --fingerprint {} --source {}); fix the cause, then run: bin/ingest-quarantine storm"
                        + " resume --source {}", LogSafe.identity(storm.source()), storm.fingerprint(),
                        storm.errorClass().code(), storm.reasonCode(), storm.failed(), storm.deliveries(),
                        storm.percent(), StormThresholds.FAILING_PERCENT, thresholds.failingPercent(), storm.began(),
                        storm.failed(), storm.fingerprint(), LogSafe.identity(storm.source()),
                        LogSafe.identity(storm.source()));
            }
            case ALREADY_PAUSED -> {
                if (trip.pause() != null) {
                    seePaused(trip.pause());
                }
            }
        }
    }

    /** Takes the source for paused here now, before the next reading. */
    private synchronized void seePaused(SourcePauses.Pause pause) {
        Map<String, SourcePauses.Pause> now = new java.util.TreeMap<>(paused);
        now.put(pause.source(), pause);
        paused = Map.copyOf(now);
        windows.clear(pause.source());
        metrics.stormPaused(pause.source(), true);
    }

    /** Reads the open pauses; a pause or resume another process wrote is logged once. */
    synchronized void refresh() {
        Map<String, SourcePauses.Pause> now;
        try {
            now = pauses.open();
        } catch (RuntimeException e) {
            if (!unreadable) {
                LOG.warn("the paused sources could not be read ({}); the last reading holds, read again every {} ms",
                        e.getMessage(), thresholds.pauseCache().toMillis());
            }
            unreadable = true;
            return;
        }
        unreadable = false;
        Map<String, SourcePauses.Pause> before = paused;
        now.forEach((source, pause) -> {
            if (!before.containsKey(source)) {
                windows.clear(source);
                metrics.stormPaused(source, true);
                LOG.info("source {} is paused (by {} at {}: fingerprint {}, {}% of {} deliveries); its deliveries are"
                        + " handed back unworked until bin/ingest-quarantine storm resume --source {}",
                        LogSafe.identity(source), pause.pausedBy(), pause.pausedAt(), pause.fingerprint(),
                        pause.percent(), pause.deliveries(), LogSafe.identity(source));
            }
        });
        before.forEach((source, pause) -> {
            if (!now.containsKey(source)) {
                windows.clear(source);
                metrics.stormPaused(source, false);
                LOG.info("source {} is resumed; consuming its deliveries again", LogSafe.identity(source));
            }
        });
        paused = Map.copyOf(now);
    }

    /** Stops reading the pauses. */
    @Override
    public void close() {
        reader.shutdownNow();
    }
}
