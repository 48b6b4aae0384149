package org.ingestquarantine.delivery;

import java.time.Duration;

/**
 * The back-off of a broker without a per-message delay (RabbitMQ quorum queues, Kafka): the consumer
 * thread waits before it fails the exchange, so the redelivery comes no sooner.
 */
public final class ReleaseWait {

    private ReleaseWait() {
    }

    /**
     * @param delay the class's back-off
     * @param max the longest wait allowed (the broker's patience with a silent consumer)
     * @return {@code false} when the wait was interrupted (the consumer is stopping), else {@code true}
     */
    public static boolean sleep(Duration delay, Duration max) {
        Duration wait = delay.compareTo(max) > 0 ? max : delay;
        if (wait.isNegative() || wait.isZero()) {
            return true;
        }
        try {
            Thread.sleep(wait.toMillis());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
