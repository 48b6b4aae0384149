package org.ingestquarantine.scenarios;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.ingestquarantine.broker.rabbitmq.RabbitMqBrokerAdapter;
import org.ingestquarantine.testsupport.Exec;
import org.ingestquarantine.testsupport.RabbitMqAppLock;
import org.ingestquarantine.testsupport.RabbitMqBroker;

/**
 * The machine's RabbitMQ ({@link RabbitMqBroker}, this JVM's vhost), observed through its firehose tracer
 * ({@code rabbitmqctl trace_on -p <vhost>}): a private queue bound to {@code amq.rabbitmq.trace} with routing keys
 * {@code deliver.ingest} and {@code deliver.ingest.dlq} receives one copy per delivery, counted per
 * delivery key (message id, or the body hash for messages without one). From {@link #start()} to {@link #close()}
 * it holds a share of the broker application ({@link RabbitMqAppLock}); its restart takes it alone.
 */
public final class RabbitMqFixture implements BrokerFixture {

    private static final String TRACE_EXCHANGE = "amq.rabbitmq.trace";

    private final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
    private final Set<String> deadLettered = ConcurrentHashMap.newKeySet();
    private RabbitMqBroker rabbit;
    private Connection tracer;
    private AutoCloseable share;

    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public String profile() {
        return "rabbitmq";
    }

    @Override
    public Map<String, String> start() throws Exception {
        share = RabbitMqAppLock.share();
        try {
            rabbit = RabbitMqBroker.ensureRunning();
            rabbit.purgeQueues();
            startTracer();
        } catch (Exception | Error e) {
            share.close();
            throw e;
        }
        return Map.of("rabbitmq.uri", rabbit.amqpUri());
    }

    @Override
    public Map<String, String> externalConsumerProperties() {
        return Map.of("rabbitmq.uri", rabbit.amqpUri());
    }

    /** @return the broker, for tests that publish or count on their own */
    public RabbitMqBroker broker() {
        return rabbit;
    }

    @Override
    public int deliveries(String deliveryKey) {
        return deliveries.getOrDefault(deliveryKey, 0);
    }

    /** @return messages that ever reached {@code ingest.dlq} (seen by the tracer) plus those ready on it now */
    @Override
    public long deadLettered() {
        return Math.max(deadLettered.size(), rabbit.messageCount("ingest.dlq"));
    }

    @Override
    public boolean canRestart() {
        return true;
    }

    /**
     * {@code rabbitmqctl stop_app}, then {@code start_app}, with no other JVM using the broker
     * ({@link RabbitMqAppLock#exclusively}); the tracer is set up again afterwards.
     */
    @Override
    public void restartBroker() throws Exception {
        closeTracer();
        RabbitMqAppLock.exclusively(() -> {
            rabbit.stopApp();
            rabbit.startApp();
        });
        startTracer();
    }

    @Override
    public void close() throws Exception {
        closeTracer();
        try {
            if (rabbit != null) {
                Exec.run(List.of("rabbitmqctl", "-q", "trace_off", "-p", rabbit.vhost()), Duration.ofSeconds(30));
                rabbit.purgeQueues();
            }
        } finally {
            if (share != null) {
                share.close();
            }
        }
    }

    private void startTracer() throws Exception {
        Exec on = Exec.run(List.of("rabbitmqctl", "-q", "trace_on", "-p", rabbit.vhost()), Duration.ofSeconds(30));
        if (on.exitCode() != 0) {
            throw new IllegalStateException("rabbitmqctl trace_on failed: " + on.output());
        }
        tracer = rabbit.connectionFactory().newConnection("scenario-tracer");
        Channel ch = tracer.createChannel();
        String q = ch.queueDeclare().getQueue();
        ch.queueBind(q, TRACE_EXCHANGE, "deliver.ingest");
        ch.queueBind(q, TRACE_EXCHANGE, "deliver.ingest.dlq");
        ch.basicConsume(q, true, new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                String key = keyOf(props, body);
                if (envelope.getRoutingKey().equals("deliver.ingest")) {
                    deliveries.merge(key, 1, Integer::sum);
                } else {
                    deadLettered.add(key);
                }
            }
        });
    }

    private void closeTracer() {
        if (tracer != null) {
            try {
                tracer.close();
            } catch (IOException | RuntimeException e) {
                // already gone with the broker
            }
            tracer = null;
        }
    }

    /** The trace message carries the original message's properties in its {@code properties} header. */
    private static String keyOf(AMQP.BasicProperties traceProps, byte[] body) {
        Map<String, Object> headers = traceProps.getHeaders();
        Object properties = headers == null ? null : headers.get("properties");
        Object id = properties instanceof Map<?, ?> m ? m.get("message_id") : null;
        return id == null ? RabbitMqBrokerAdapter.bodyKey(body) : RabbitMqBrokerAdapter.KEY_PREFIX + id;
    }
}
