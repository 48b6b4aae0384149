package org.ingestquarantine.broker.rabbitmq;

import com.github.f4b6a3.ulid.UlidCreator;
import com.rabbitmq.client.ReturnListener;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.AmqpRejectAndDontRequeueException;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;
import org.springframework.retry.interceptor.RetryOperationsInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ingest consumer's advice around each delivery (the endpoint's {@code retry} option, bean
 * {@value RabbitMqWiring#REQUEUE}). It decides how a delivery ends at the broker; Camel's route never
 * acknowledges or rejects by itself:
 *
 * <ul>
 *   <li><b>No message id</b> (a producer such as {@code amqp-publish} set none): the listener is not called.
 *       A copy with an assigned message id (a ULID) is published to the ingest exchange and confirmed, then
 *       the original is acknowledged. Every later delivery of that publish carries the id, so the delivery key
 *       is unique per publish and stable across redeliveries: re-publishing the same body is a new message.
 *   <li><b>Completed exchange</b>: returns, and the container acknowledges.
 *   <li><b>Failed exchange released with a back-off</b> ({@link RabbitMqBrokerAdapter#release}): a copy goes
 *       to the retry queue with a per-message TTL of the back-off and our delivery count in the
 *       {@value #DELIVERIES_HEADER} header; once the broker confirms it, the original is
 *       acknowledged. The retry queue dead-letters the copy back to the ingest exchange when its TTL runs out,
 *       so no consumer thread waits out a back-off. When the count has passed the broker backstop
 *       ({@code rabbitmq.delivery-limit}), the original is rejected without requeue instead, and the quorum
 *       queue dead-letters it to {@code ingest.dlq} (swept into the quarantine table). A delivery handed back
 *       unworked (no attempt opened) is not counted. The count is the attempt journal's
 *       ({@link RabbitMqBrokerAdapter}): the header only records it on the copy, and nothing reads it back.
 *   <li><b>Any other failure</b>, or a copy that could not be published: requeued at once
 *       ({@link ImmediateRequeueAmqpException}); the quorum queue counts it in {@code x-delivery-count}.
 * </ul>
 *
 * <p>A crash between a confirmed copy and the acknowledgement of the original leaves both: the message is
 * then delivered twice (at least once, never lost). The listener runs on the container's thread
 * (camel-spring-rabbitmq's default synchronous consumer), which is how a release reaches this advice
 * ({@link ReleaseRequest}).
 */
final class RabbitMqListenerAdvice extends RetryOperationsInterceptor {

    /** Header names the copies never carry over: the broker's own counts and death history. */
    private static final java.util.Set<String> BROKER_HEADERS = java.util.Set.of(
            "x-delivery-count", "x-death", "x-first-death-exchange", "x-first-death-queue",
            "x-first-death-reason", "x-last-death-exchange", "x-last-death-queue", "x-last-death-reason");

    /** Our header on a copy from the retry queue: deliveries of the message started before this copy. */
    static final String DELIVERIES_HEADER = "iq-deliveries";

    private static final Logger LOG = LoggerFactory.getLogger(RabbitMqListenerAdvice.class);
    private static final DefaultMessagePropertiesConverter PROPERTIES = new DefaultMessagePropertiesConverter();

    private final RabbitTemplate publisher;
    private final String exchange;
    private final String routingKey;
    private final String retryQueue;
    private final int deliveryLimit;

    /**
     * @param publisher a template on a connection factory with simple publisher confirms
     * @param exchange the ingest exchange
     * @param routingKey the routing key that reaches the ingest queue
     * @param retryQueue the retry queue (dead-letters to {@code exchange} with {@code routingKey})
     * @param deliveryLimit the ingest queue's {@code x-delivery-limit}: a release after more than this many
     *     returns dead-letters instead of going to the retry queue
     */
    RabbitMqListenerAdvice(RabbitTemplate publisher, String exchange, String routingKey, String retryQueue,
                           int deliveryLimit) {
        this.publisher = publisher;
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.retryQueue = retryQueue;
        this.deliveryLimit = deliveryLimit;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object data = invocation.getArguments()[1];
        if (!(data instanceof Message message)) {
            return invocation.proceed();
        }
        String id = message.getMessageProperties().getMessageId();
        if (id == null || id.isBlank()) {
            assignIdentity(message);
            return null;
        }
        ReleaseRequest.clear();
        try {
            return invocation.proceed();
        } catch (Throwable failed) {
            ReleaseRequest release = ReleaseRequest.take();
            if (release != null) {
                // deliveries started so far (the journal's count): what the copy carries
                int soFar = release.deliveries();
                if (soFar > deliveryLimit) {
                    throw new AmqpRejectAndDontRequeueException("delivered " + soFar
                            + " times, past the backstop; dead-lettered");
                }
                if (toRetryQueue(message, release.backoff(), soFar)) {
                    return null;
                }
            }
            throw new ImmediateRequeueAmqpException("exchange failed; requeued for redelivery");
        } finally {
            ReleaseRequest.clear();
        }
    }

    /** Publishes a copy with a fresh message id to the ingest exchange; throws (requeue) if unconfirmed. */
    private void assignIdentity(Message original) {
        Message copy = copyOf(original, UlidCreator.getMonotonicUlid().toString());
        try {
            publishConfirmed(exchange, routingKey, copy);
        } catch (AmqpException e) {
            throw new ImmediateRequeueAmqpException("message without id not re-published (" + e.getClass().getSimpleName()
                    + "); requeued", e);
        }
        LOG.debug("message without id re-published as {}", copy.getMessageProperties().getMessageId());
    }

    /**
     * @param deliveries deliveries of the message started so far
     * @return whether the copy is confirmed in the retry queue
     */
    private boolean toRetryQueue(Message original, Duration backoff, int deliveries) {
        Message copy = copyOf(original, original.getMessageProperties().getMessageId());
        copy.getMessageProperties().setHeader(DELIVERIES_HEADER, deliveries);
        copy.getMessageProperties().setExpiration(Long.toString(Math.max(0, backoff.toMillis())));
        try {
            publishConfirmed("", retryQueue, copy);
            return true;
        } catch (AmqpException e) {
            LOG.warn("released message not moved to {} ({}); requeued at once", retryQueue, e.getClass().getSimpleName());
            return false;
        }
    }

    /**
     * Publishes mandatory and waits for the broker's confirm; a message the broker could not route (a missing
     * queue or binding) comes back as a basic.return before its confirm and fails the publish, so a copy is never
     * confirmed into nowhere.
     */
    private void publishConfirmed(String toExchange, String key, Message m) {
        publisher.execute(channel -> {
            AtomicBoolean returned = new AtomicBoolean();
            ReturnListener listener = channel.addReturnListener(r -> returned.set(true));
            try {
                channel.basicPublish(toExchange, key, true,
                        PROPERTIES.fromMessageProperties(m.getMessageProperties(), StandardCharsets.UTF_8.name()), m.getBody());
                channel.waitForConfirmsOrDie(RabbitMqIngestPublisher.CONFIRM_TIMEOUT_MS);
            } finally {
                channel.removeReturnListener(listener);
            }
            if (returned.get()) {
                throw new AmqpException("the broker could not route the copy to exchange '" + toExchange + "' with key '"
                        + key + "'; declare the queues of broker-configs/rabbitmq/definitions.json");
            }
            return null;
        });
    }

    /** @return the body and the producer's properties and headers, with {@code messageId}, never the broker's counts */
    private static Message copyOf(Message original, String messageId) {
        MessageProperties from = original.getMessageProperties();
        MessageProperties p = new MessageProperties();
        p.setMessageId(messageId);
        p.setContentType(from.getContentType());
        p.setContentEncoding(from.getContentEncoding());
        p.setDeliveryMode(org.springframework.amqp.core.MessageDeliveryMode.PERSISTENT);
        p.setTimestamp(from.getTimestamp());
        p.setCorrelationId(from.getCorrelationId());
        p.setType(from.getType());
        p.setAppId(from.getAppId());
        for (Map.Entry<String, Object> h : from.getHeaders().entrySet()) {
            if (!BROKER_HEADERS.contains(h.getKey()) && !DELIVERIES_HEADER.equals(h.getKey())) {
                p.setHeader(h.getKey(), h.getValue());
            }
        }
        return new Message(original.getBody(), p);
    }
}
