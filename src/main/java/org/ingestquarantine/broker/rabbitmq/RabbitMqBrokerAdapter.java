package org.ingestquarantine.broker.rabbitmq;

import java.time.Duration;
import java.util.HexFormat;
import org.apache.camel.Exchange;
import org.apache.camel.component.springrabbit.SpringRabbitMQConstants;
import org.apache.commons.codec.digest.DigestUtils;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerBackstop;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RabbitMQ (quorum queue {@code ingest}, camel-spring-rabbitmq consumer): the key is the AMQP
 * {@code message-id} property, the count comes from the attempt journal, as on Kafka.
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
 * <p>Count: {@link AttemptJournal#attempts} for the key + 1, counted by the statement that opens the attempt
 * ({@link #countsInJournal}), so only deliveries that were started count. The broker's {@code x-delivery-count}
 * counts more than that: a kill -9 returns the message its consumer held, and with two consumers on the dying
 * connection RabbitMQ may hand it to the other, dying, channel first, which returns it once more (three
 * deliveries then counted 1, 3, 5). So neither {@code x-delivery-count} nor any header is read: a producer's
 * {@code iq-deliveries} header, or a non-numeric one, changes nothing.
 *
 * <p>Back-off: {@link #release} asks the advice to move the message to the retry queue with a per-message
 * TTL of the back-off; the quorum retry queue dead-letters it back to the ingest exchange when the TTL runs
 * out. No consumer thread waits. TTLs expire at the head of the retry queue only, so a short back-off queued
 * behind a longer one comes back when that one does (at most the longest back-off, 60 s by default).
 */
public final class RabbitMqBrokerAdapter implements BrokerAdapter {

    /** Prefix of every RabbitMQ delivery key. */
    public static final String KEY_PREFIX = "rabbitmq:";

    private static final Logger LOG = LoggerFactory.getLogger(RabbitMqBrokerAdapter.class);

    private final AttemptJournal journal;
    private final int deliveryLimit;

    /**
     * @param journal the attempt journal, which counts the deliveries
     * @param deliveryLimit the ingest queue's {@code x-delivery-limit} ({@code rabbitmq.delivery-limit})
     */
    RabbitMqBrokerAdapter(AttemptJournal journal, int deliveryLimit) {
        this.journal = journal;
        this.deliveryLimit = deliveryLimit;
    }

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
        return KEY_PREFIX + "sha256:" + HexFormat.of().formatHex(DigestUtils.sha256(body), 0, 16);
    }

    /** @return deliveries started so far + 1, from the attempt journal (one read; the admitting statement counts it itself) */
    /**
     * @return the quorum queue's delivery limit as the backstop: {@code x-delivery-limit} returns, so that + 1
     *     deliveries (a release past that many dead-letters too, {@link RabbitMqListenerAdvice})
     */
    @Override
    public java.util.Optional<BrokerBackstop> backstop() {
        return java.util.Optional.of(new BrokerBackstop(deliveryLimit + 1, "the " + (deliveryLimit + 1)
                + " deliveries of the RabbitMQ queue's x-delivery-limit " + deliveryLimit + " (rabbitmq.delivery-limit)"));
    }

    @Override
    public int deliveryCount(Exchange exchange) {
        return journal.attempts(deliveryKey(exchange)) + 1;
    }

    @Override
    public boolean countsInJournal() {
        return true;
    }

    /**
     * Asks for the message to be moved to the retry queue with {@code delay} as its TTL once the exchange has
     * failed ({@link RabbitMqListenerAdvice}); returns at once. The request carries the deliveries started so far:
     * the journal's count, less this delivery when it opened no attempt (handed back unworked: another attempt
     * was live, or this process was stopping), so hand-backs neither spend a class's budget nor bring the message
     * nearer the {@code rabbitmq.delivery-limit} backstop.
     */
    @Override
    public void release(Exchange exchange, Duration delay) {
        boolean started = exchange.getProperty(PipelineKeys.ATTEMPT_ID) != null;
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        int soFar = count == null ? (started ? 1 : 0) : started ? count : count - 1;
        ReleaseRequest.request(delay, Math.max(0, soFar));
        LOG.debug("{} to the retry queue for {} ms", deliveryKey(exchange), delay.toMillis());
    }
}
