package org.ingestquarantine.broker.rabbitmq;

import java.time.Duration;

/**
 * Hands a release's back-off from {@link RabbitMqBrokerAdapter#release} (inside the route) to
 * {@link RabbitMqListenerAdvice} (around the listener), on the consumer's own thread: the listener runs
 * synchronously there, so the request of one delivery is seen only by that delivery's advice.
 */
final class ReleaseRequest {

    private static final ThreadLocal<Duration> BACKOFF = new ThreadLocal<>();

    private ReleaseRequest() {
    }

    /** @param backoff how long the broker should hold the message back */
    static void request(Duration backoff) {
        BACKOFF.set(backoff);
    }

    /** @return the back-off requested on this thread since the last {@link #clear()}, or null; clears it */
    static Duration take() {
        Duration d = BACKOFF.get();
        BACKOFF.remove();
        return d;
    }

    static void clear() {
        BACKOFF.remove();
    }
}
