package org.ingestquarantine.delivery;

import java.time.Duration;
import java.util.Objects;
import org.ingestquarantine.pipeline.Settings;

/**
 * When the failure-storm breaker ({@link FailureStorm}) pauses a source, and how a paused source's deliveries wait.
 * Every value is a property of {@code application.properties}, stated there once with its unit; none has a default
 * here.
 *
 * @param window the recent deliveries of each source a consumer judges, the last this many that ended
 *     ({@value #WINDOW})
 * @param minDeliveries the fewest of them before a share is judged ({@value #MIN_DELIVERIES}); at most {@code window}
 * @param failingPercent the share of them that must fail with one fingerprint, percent, above 0 and at most 100
 *     ({@value #FAILING_PERCENT})
 * @param knownWithin how far back before a storm's first failure one of the source's quarantine attempts with the
 *     fingerprint makes it the source's usual failure, never a storm ({@value #KNOWN_DAYS}, days)
 * @param pauseCache time between two readings of the paused sources, and between two looks of a delivery held while
 *     its source is paused ({@value #PAUSE_CACHE})
 * @param handBack how long a paused source's delivery is handed back for ({@value #HAND_BACK})
 */
public record StormThresholds(int window, int minDeliveries, double failingPercent, Duration knownWithin,
                              Duration pauseCache, Duration handBack) {

    /** Property: deliveries per source in the window. */
    public static final String WINDOW = "storm.window-deliveries";
    /** Property: fewest deliveries before the share is judged. */
    public static final String MIN_DELIVERIES = "storm.min-deliveries";
    /** Property: the failing share that pauses, percent. */
    public static final String FAILING_PERCENT = "storm.failing-percent";
    /** Property: the look-back of a known fingerprint, days. */
    public static final String KNOWN_DAYS = "storm.known-fingerprint-days";
    /** Property: ms between two readings of the paused sources. */
    public static final String PAUSE_CACHE = "storm.pause-cache-ms";
    /** Property: ms a paused source's delivery is handed back for. */
    public static final String HAND_BACK = "storm.hand-back-ms";

    /** @throws IllegalArgumentException naming the property of a value that cannot be right */
    public StormThresholds {
        Objects.requireNonNull(knownWithin, "knownWithin");
        Objects.requireNonNull(pauseCache, "pauseCache");
        Objects.requireNonNull(handBack, "handBack");
        require(window >= 1, WINDOW + " must be at least 1, was " + window);
        require(minDeliveries >= 1 && minDeliveries <= window, MIN_DELIVERIES + " must be from 1 to " + WINDOW + " ("
                + window + "), was " + minDeliveries);
        require(failingPercent > 0 && failingPercent <= 100, FAILING_PERCENT + " must be above 0 and at most 100, was "
                + failingPercent);
        require(!knownWithin.isNegative(), KNOWN_DAYS + " must not be negative, was " + knownWithin.toDays());
        require(pauseCache.toMillis() >= 1, PAUSE_CACHE + " must be at least 1, was " + pauseCache.toMillis());
        require(!handBack.isNegative(), HAND_BACK + " must not be negative, was " + handBack.toMillis());
    }

    /**
     * @param settings the application's properties
     * @return the thresholds they state
     * @throws IllegalStateException if one is missing
     */
    public static StormThresholds from(Settings settings) {
        return new StormThresholds((int) settings.requiredNumber(WINDOW), (int) settings.requiredNumber(MIN_DELIVERIES),
                Double.parseDouble(settings.required(FAILING_PERCENT)),
                Duration.ofDays(settings.requiredNumber(KNOWN_DAYS)), settings.requiredMillis(PAUSE_CACHE),
                settings.requiredMillis(HAND_BACK));
    }

    /**
     * @param failed deliveries of the window that failed with one fingerprint
     * @param deliveries deliveries in the window
     * @return whether they are a storm: at least {@link #minDeliveries} deliveries, {@link #failingPercent} of them
     *     or more failed
     */
    public boolean isStorm(int failed, int deliveries) {
        return deliveries >= minDeliveries && failed * 100.0 >= failingPercent * deliveries;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
