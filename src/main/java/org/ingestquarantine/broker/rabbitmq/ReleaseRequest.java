package org.ingestquarantine.broker.rabbitmq;

import java.time.Duration;

/**
 * Hands a release from {@link RabbitMqBrokerAdapter#release} (inside the route) to
 * {@link RabbitMqListenerAdvice} (around the listener), on the consumer's own thread: the listener runs
 * synchronously there, so the request of one delivery is seen only by that delivery's advice.
 *
 * @param backoff how long the broker should hold the message back
 * @param counted whether this delivery counts as one: false for a delivery handed back unworked (no attempt was
 *     opened: another attempt at the message was live, or the process was stopping), whose copy then carries
 *     the count it arrived with
 */
record ReleaseRequest(Duration backoff, boolean counted) {

    private static final ThreadLocal<ReleaseRequest> REQUEST = new ThreadLocal<>();

    /**
     * @param backoff how long the broker should hold the message back
     * @param counted whether this delivery counts
     */
    static void request(Duration backoff, boolean counted) {
        REQUEST.set(new ReleaseRequest(backoff, counted));
    }

    /** @return the release requested on this thread since the last {@link #clear()}, or null; clears it */
    static ReleaseRequest take() {
        ReleaseRequest r = REQUEST.get();
        REQUEST.remove();
        return r;
    }

    static void clear() {
        REQUEST.remove();
    }
}
