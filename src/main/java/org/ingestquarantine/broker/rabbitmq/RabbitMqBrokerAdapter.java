package org.ingestquarantine.broker.rabbitmq;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.springrabbit.SpringRabbitMQConstants;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RabbitMQ (quorum queue {@code ingest}, camel-spring-rabbitmq consumer): the key is the AMQP
 * {@code message-id} property, the count is our {@value #DELIVERIES_HEADER} header + {@code x-delivery-count} + 1.
 *
 * <p>Acknowledgement, as wired by {@link RabbitMqWiring} and {@link RabbitMqListenerAdvice}: a completed
 * exchange (indexed, unchanged, or quarantined with its record committed) is acknowledged; a released one is
 * moved to the retry queue (a confirmed copy, then the original acknowledged); any other failed exchange is
 * rejected WITH requeue, which the quorum queue counts. Dead-lettering into {@code ingest.dlq} is left to the
 * broker's {@code x-delivery-limit} backstop and to releases past it, for messages our code could not record
 * (see {@link org.ingestquarantine.delivery.DlqSweeper}).
 *
 * <p>Keys: {@code rabbitmq:<message-id>}. Our publisher sets a ULID; a message published without one (as
 * {@code amqp-publish} does) is re-published once with an assigned ULID before any work
 * ({@link RabbitMqListenerAdvice}), so every publish has its own key, even of an identical body. RabbitMQ
 * itself gives a message no identity a consumer could read, so this needs the one extra publish. Only a
 * message in {@code ingest.dlq} may still lack an id; it is keyed by its body ({@link #bodyKey(byte[])}).
 *
 * <p>Count: deliveries so far = {@value #DELIVERIES_HEADER} (deliveries of earlier copies of this message that
 * went through the retry queue; absent = 0) + {@code x-delivery-count} (returns of this copy: requeues and
 * consumers that died holding it; absent or 0 on its first delivery, RabbitMQ 3.10 quorum queues) + 1.
 *
 * <p>Back-off: {@link #release} asks the advice to move the message to the retry queue with a per-message
 * TTL of the back-off; the quorum retry queue dead-letters it back to the ingest exchange when the TTL runs
 * out. No consumer thread waits. TTLs expire at the head of the retry queue only, so a short back-off queued
 * behind a longer one comes back when that one does (at most the longest back-off, 60 s by default).
 */
public final class RabbitMqBrokerAdapter implements BrokerAdapter {

    /** Prefix of every RabbitMQ delivery key. */
    public static final String KEY_PREFIX = "rabbitmq:";
    /** The header a quorum queue sets on a redelivered message: earlier returns of it. */
    public static final String DELIVERY_COUNT_HEADER = "x-delivery-count";
    /** Our header on a copy from the retry queue: deliveries of the message before this copy. */
    public static final String DELIVERIES_HEADER = "iq-deliveries";

    private static final Logger LOG = LoggerFactory.getLogger(RabbitMqBrokerAdapter.class);

    @Override
    public String deliveryKey(Exchange exchange) {
        String id = exchange.getIn().getHeader(SpringRabbitMQConstants.MESSAGE_ID, String.class);
        if (id != null && !id.isBlank()) {
            return KEY_PREFIX + id;
        }
        // only in ingest.dlq (the advice gives every ingest message an id first): a message whose id could
        // never be assigned and that the broker dead-lettered; the body is the best identity left
        byte[] body = exchange.getIn().getBody(byte[].class);
        return bodyKey(body == null ? new byte[0] : body);
    }

    /**
     * @param body a message body
     * @return the key of a dead-lettered message without a message id: {@code rabbitmq:sha256:<32 hex digits>}
     *     (two such messages with identical bodies share it)
     */
    public static String bodyKey(byte[] body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
            return KEY_PREFIX + "sha256:" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public int deliveryCount(Exchange exchange) {
        return deliveries(exchange.getIn().getHeaders()) + 1;
    }

    /**
     * @param headers a delivered message's headers
     * @return deliveries before this one: {@value #DELIVERIES_HEADER} + {@value #DELIVERY_COUNT_HEADER}
     *     (absent = 0), capped below {@link Integer#MAX_VALUE}
     */
    static int deliveries(Map<String, Object> headers) {
        long n = number(headers.get(DELIVERIES_HEADER)) + number(headers.get(DELIVERY_COUNT_HEADER));
        return (int) Math.min(Integer.MAX_VALUE - 1L, Math.max(0, n));
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : value == null ? 0 : Long.parseLong(value.toString().trim());
    }

    /**
     * Asks for the message to be moved to the retry queue with {@code delay} as its TTL once the exchange has
     * failed ({@link RabbitMqListenerAdvice}); returns at once. A delivery that opened no attempt (handed back
     * unworked: another attempt was live, or this process was stopping) is not counted: its copy carries the
     * count it arrived with, so hand-backs neither spend a class's budget nor bring the message nearer the
     * {@code rabbitmq.delivery-limit} backstop.
     */
    @Override
    public void release(Exchange exchange, Duration delay) {
        ReleaseRequest.request(delay, exchange.getProperty(PipelineKeys.ATTEMPT_ID) != null);
        LOG.debug("{} to the retry queue for {} ms", deliveryKey(exchange), delay.toMillis());
    }
}
