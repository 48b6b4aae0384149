package org.ingestquarantine.broker.rabbitmq;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import org.apache.camel.Exchange;
import org.apache.camel.component.springrabbit.SpringRabbitMQConstants;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.ReleaseWait;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RabbitMQ (quorum queue {@code ingest}, camel-spring-rabbitmq consumer): the key is the AMQP
 * {@code message-id} property, the count is {@code x-delivery-count} + 1.
 *
 * <p>Acknowledgement, as wired by {@link RabbitMqWiring}: a completed exchange (indexed, unchanged, or
 * quarantined with its record committed) is acknowledged; a failed exchange is rejected WITH requeue
 * ({@code basic.nack requeue=true}), which the quorum queue counts as a delivery attempt. Nothing is
 * rejected without requeue by our code: dead-lettering into {@code ingest.dlq} is left to the broker's
 * {@code x-delivery-limit} backstop, for messages our code could not record (see
 * {@link org.ingestquarantine.delivery.DlqSweeper}).
 *
 * <p>Keys: {@code rabbitmq:<message-id>}; a message published without a message id (as
 * {@code amqp-publish} does) is keyed {@code rabbitmq:sha256:<first 32 hex digits of the body's SHA-256>},
 * stable across its redeliveries (two such messages with identical bodies share a key).
 *
 * <p>Count: {@code x-delivery-count} counts earlier returns of the message (absent or 0 on the first
 * delivery; RabbitMQ 3.10 quorum queues), so deliveries so far = that + 1.
 *
 * <p>Back-off: quorum queues cannot delay a requeue, so {@link #release} waits on the consumer thread
 * before the exchange completes, for the back-off capped at {@code maxReleaseDelay} (property
 * {@code rabbitmq.release-delay-max-ms}; 0 = requeue at
 * once). While it waits, the message stays unacknowledged on that consumer; the other consumers go on.
 * An interrupt (shutdown) ends the wait early; the message is then requeued at once.
 */
public final class RabbitMqBrokerAdapter implements BrokerAdapter {

    /** Prefix of every RabbitMQ delivery key. */
    public static final String KEY_PREFIX = "rabbitmq:";
    /** The header a quorum queue sets on a redelivered message: earlier returns of it. */
    public static final String DELIVERY_COUNT_HEADER = "x-delivery-count";

    private static final Logger LOG = LoggerFactory.getLogger(RabbitMqBrokerAdapter.class);

    private final Duration maxReleaseDelay;

    /** @param maxReleaseDelay cap of the wait in {@link #release}; zero or negative = no wait */
    public RabbitMqBrokerAdapter(Duration maxReleaseDelay) {
        this.maxReleaseDelay = maxReleaseDelay.isNegative() ? Duration.ZERO : maxReleaseDelay;
    }

    @Override
    public String deliveryKey(Exchange exchange) {
        String id = exchange.getIn().getHeader(SpringRabbitMQConstants.MESSAGE_ID, String.class);
        if (id != null && !id.isBlank()) {
            return KEY_PREFIX + id;
        }
        byte[] body = exchange.getIn().getBody(byte[].class);
        return bodyKey(body == null ? new byte[0] : body);
    }

    /**
     * @param body a message body
     * @return the key of a message without a message id: {@code rabbitmq:sha256:<32 hex digits>}
     */
    public static String bodyKey(byte[] body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(body);
            return KEY_PREFIX + "sha256:" + HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** @return {@link #bodyKey(byte[])} of the UTF-8 bytes of {@code body} */
    public static String bodyKey(String body) {
        return bodyKey(body.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public int deliveryCount(Exchange exchange) {
        Object returned = exchange.getIn().getHeader(DELIVERY_COUNT_HEADER);
        long earlier = returned instanceof Number n ? n.longValue()
                : returned == null ? 0 : Long.parseLong(returned.toString().trim());
        return (int) Math.min(Integer.MAX_VALUE - 1, earlier) + 1;
    }

    /**
     * Waits for {@code delay}, capped at the configured maximum; the failed exchange then makes the
     * consumer requeue the message.
     */
    @Override
    public void release(Exchange exchange, Duration delay) {
        if (!ReleaseWait.sleep(delay, maxReleaseDelay)) {
            LOG.debug("release wait of {} interrupted; requeueing at once", deliveryKey(exchange));
        }
    }
}
