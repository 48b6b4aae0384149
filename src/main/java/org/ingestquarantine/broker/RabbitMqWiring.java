package org.ingestquarantine.broker;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.camel.spi.Registry;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.retry.interceptor.RetryOperationsInterceptor;
import org.springframework.retry.policy.NeverRetryPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.ErrorHandler;

/**
 * Wires the {@code rabbitmq} profile: connection factories, the ingest publisher, the broker adapter and
 * the beans the consumer endpoints name ({@code application-rabbitmq.properties}).
 *
 * <p>Beans bound: {@value #CONNECTION_FACTORY} (consumers), {@value #REQUEUE} and {@value #DLQ_REQUEUE}
 * (the endpoints' {@code retry} option), {@value #LISTENER_ERRORS} (the component's error handler),
 * {@code ingestPublisher}.
 *
 * <p>Why a custom {@code retry}: camel-spring-rabbitmq's default advice retries a failed message
 * in-process 5 times (no new broker delivery, so counts would be wrong), and with
 * {@code rejectAndDontRequeue=false} it has no recoverer, so Spring AMQP logs "Message(s) dropped on
 * recovery" and ACKNOWLEDGES the failed message. Ours never retries in-process and ends every failed
 * exchange with {@link ImmediateRequeueAmqpException}: the container rejects it with requeue, which the
 * quorum queue counts. Why a custom error handler: Spring's default one logs every failure with a stack
 * trace and turns some causes (e.g. ClassCastException) into reject-without-requeue, which would
 * dead-letter a message without a quarantine record.
 *
 * <p>Properties (defaults are constants here): {@code rabbitmq.uri} ({@value #DEFAULT_URI}),
 * {@code rabbitmq.exchange} ({@value #DEFAULT_EXCHANGE}), {@code rabbitmq.routing-key}
 * ({@value #DEFAULT_ROUTING_KEY}), {@code rabbitmq.queue} ({@value #DEFAULT_QUEUE}),
 * {@code rabbitmq.release-delay-max-ms} ({@value RabbitMqBrokerAdapter#DEFAULT_MAX_RELEASE_DELAY_MS}),
 * {@code rabbitmq.dlq-requeue-delay-ms} ({@value #DEFAULT_DLQ_REQUEUE_DELAY_MS}: pause before a DLQ message
 * whose sweep failed is requeued, so a persistent failure does not spin).
 */
public final class RabbitMqWiring {

    /** Default broker URI; vhost {@code /} is written {@code %2f}. */
    public static final String DEFAULT_URI = "amqp://guest:guest@127.0.0.1:5672/%2f";
    /** Default exchange producers publish to. */
    public static final String DEFAULT_EXCHANGE = "ingest";
    /** Default routing key from the exchange to the ingest queue. */
    public static final String DEFAULT_ROUTING_KEY = "ingest";
    /** Default ingest queue (a quorum queue, see broker-configs/rabbitmq/definitions.json). */
    public static final String DEFAULT_QUEUE = "ingest";
    /** Default pause before requeueing a DLQ message whose sweep failed, milliseconds. */
    public static final long DEFAULT_DLQ_REQUEUE_DELAY_MS = 1_000;

    /** Bean name of the consumers' connection factory. */
    public static final String CONNECTION_FACTORY = "rabbitConnectionFactory";
    /** Bean name of the ingest consumer's retry advice: requeue at once. */
    public static final String REQUEUE = "rabbitRequeue";
    /** Bean name of the DLQ sweeper's retry advice: requeue after a pause. */
    public static final String DLQ_REQUEUE = "rabbitDlqRequeue";
    /** Bean name of the listener containers' error handler. */
    public static final String LISTENER_ERRORS = "rabbitListenerErrors";

    private static final Logger LOG = LoggerFactory.getLogger(RabbitMqWiring.class);

    private RabbitMqWiring() {
    }

    /**
     * @param settings reads a property
     * @param registry where the beans go
     * @param started receives what must be closed when the application stops
     * @return the broker adapter
     */
    public static BrokerAdapter open(Function<String, Optional<String>> settings, Registry registry,
                                     Consumer<AutoCloseable> started) {
        URI uri = URI.create(settings.apply("rabbitmq.uri").orElse(DEFAULT_URI));
        CachingConnectionFactory consumers = new CachingConnectionFactory(uri);
        consumers.setConnectionNameStrategy(f -> "ingest-quarantine-consumer");
        started.accept(consumers::destroy);
        CachingConnectionFactory publishers = new CachingConnectionFactory(uri);
        publishers.setConnectionNameStrategy(f -> "ingest-quarantine-publisher");
        publishers.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.SIMPLE);
        started.accept(publishers::destroy);

        String queue = settings.apply("rabbitmq.queue").orElse(DEFAULT_QUEUE);
        registry.bind(CONNECTION_FACTORY, consumers);
        registry.bind(REQUEUE, requeueAfter(Duration.ZERO));
        registry.bind(DLQ_REQUEUE, requeueAfter(Duration.ofMillis(
                settings.apply("rabbitmq.dlq-requeue-delay-ms").map(Long::parseLong).orElse(DEFAULT_DLQ_REQUEUE_DELAY_MS))));
        registry.bind(LISTENER_ERRORS, (ErrorHandler) t ->
                LOG.debug("listener failed; the message is requeued ({})", t.getClass().getSimpleName()));
        registry.bind("ingestPublisher", new RabbitMqIngestPublisher(new RabbitTemplate(publishers),
                settings.apply("rabbitmq.exchange").orElse(DEFAULT_EXCHANGE),
                settings.apply("rabbitmq.routing-key").orElse(DEFAULT_ROUTING_KEY), queue));
        return new RabbitMqBrokerAdapter(Duration.ofMillis(settings.apply("rabbitmq.release-delay-max-ms")
                .map(Long::parseLong).orElse(RabbitMqBrokerAdapter.DEFAULT_MAX_RELEASE_DELAY_MS)));
    }

    /**
     * @param pause how long to wait before the requeue (zero: none)
     * @return advice that calls the listener once and, if it failed, requeues the message
     */
    static RetryOperationsInterceptor requeueAfter(Duration pause) {
        return RetryInterceptorBuilder.stateless()
                .retryPolicy(new NeverRetryPolicy())
                .recoverer((message, cause) -> {
                    if (!pause.isZero()) {
                        try {
                            Thread.sleep(pause.toMillis());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    throw new ImmediateRequeueAmqpException("exchange failed; requeued for redelivery");
                })
                .build();
    }
}
