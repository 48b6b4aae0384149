package org.ingestquarantine.broker.rabbitmq;

import com.github.f4b6a3.ulid.UlidCreator;
import java.nio.charset.StandardCharsets;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.pipeline.IngestMessage;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.core.RabbitTemplate;

/**
 * Publishes ingest messages to a RabbitMQ exchange as persistent messages with a fresh message id, a ULID
 * (the delivery key), waiting for the broker's publisher confirm; reports the ready messages of the
 * ingest queue.
 */
public final class RabbitMqIngestPublisher implements IngestPublisher {

    /** How long a publish waits for the broker's confirm, milliseconds. */
    public static final long CONFIRM_TIMEOUT_MS = 10_000;

    private final RabbitTemplate template;
    private final String exchange;
    private final String routingKey;
    private final String queue;

    /**
     * @param template a template on a connection factory with simple publisher confirms
     * @param exchange the exchange producers publish to ({@code ingest})
     * @param routingKey the routing key that reaches the ingest queue ({@code ingest})
     * @param queue the ingest queue, for {@link #pending()}
     */
    public RabbitMqIngestPublisher(RabbitTemplate template, String exchange, String routingKey, String queue) {
        this.template = template;
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.queue = queue;
    }

    @Override
    public String publish(IngestMessage message) {
        return publishRaw(message.toJson());
    }

    /**
     * @throws org.springframework.amqp.AmqpException when the broker does not confirm the message within
     *     {@value #CONFIRM_TIMEOUT_MS} ms, or refuses it (a full queue rejects publishes)
     */
    @Override
    public String publishRaw(String body) {
        String id = UlidCreator.getMonotonicUlid().toString();
        MessageProperties p = new MessageProperties();
        p.setMessageId(id);
        p.setDeliveryMode(MessageDeliveryMode.PERSISTENT);
        p.setContentType(MessageProperties.CONTENT_TYPE_JSON);
        p.setContentEncoding(StandardCharsets.UTF_8.name());
        Message m = new Message(body.getBytes(StandardCharsets.UTF_8), p);
        template.invoke(t -> {
            t.send(exchange, routingKey, m);
            t.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MS);
            return null;
        });
        return RabbitMqBrokerAdapter.KEY_PREFIX + id;
    }

    /**
     * @return messages ready on the ingest queue; messages delivered and not yet acknowledged are not
     *     counted (AMQP's queue.declare-ok does not report them)
     */
    @Override
    public long pending() {
        Integer ready = template.execute(ch -> ch.queueDeclarePassive(queue).getMessageCount());
        return ready == null ? -1 : ready;
    }
}
