package org.ingestquarantine.broker.rabbitmq;

import java.time.Duration;

/**
 * Hands a release from {@link RabbitMqBrokerAdapter#release} (inside the route) to
 * {@link RabbitMqListenerAdvice} (around the listener), on the consumer's own thread: the listener runs
 * synchronously there, so the request of one delivery is seen only by that delivery's advice.
 *
 * @param backoff how long the broker should hold the message back
 * @param deliveries deliveries of the message started so far (the attempt journal's count), this one included
 *     unless it was handed back unworked (no attempt opened: another attempt at the message was live, or the
 *     process was stopping); the copy carries it, and the {@code rabbitmq.delivery-limit} backstop reads it
 */
record ReleaseRequest(Duration backoff, int deliveries) {

    private static final ThreadLocal<ReleaseRequest> REQUEST = new ThreadLocal<>();

    /**
     * @param backoff how long the broker should hold the message back
     * @param deliveries deliveries started so far
     */
    static void request(Duration backoff, int deliveries) {
        REQUEST.set(new ReleaseRequest(backoff, deliveries));
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
