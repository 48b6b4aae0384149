package org.ingestquarantine.delivery;

import java.time.Duration;

/**
 * The back-off of a broker without a per-message delay (Kafka): the consumer thread waits before it fails the
 * exchange, so the redelivery comes no sooner. The wait ends as soon as this process is stopping, so a shutdown
 * is never held up by a back-off.
 */
public final class ReleaseWait {

    private ReleaseWait() {
    }

    /**
     * @param delay the class's back-off
     * @param max the longest wait allowed (the broker's patience with a silent consumer)
     * @param inFlight ends the wait when the process starts stopping
     * @return {@code false} when the wait ended early (the process is stopping, or the thread was interrupted),
     *     else {@code true}
     */
    public static boolean sleep(Duration delay, Duration max, InFlightAttempts inFlight) {
        Duration wait = delay.compareTo(max) > 0 ? max : delay;
        if (wait.isNegative() || wait.isZero()) {
            return true;
        }
        return inFlight.awaitStopping(wait);
    }
}
