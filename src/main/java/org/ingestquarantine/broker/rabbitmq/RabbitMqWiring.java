package org.ingestquarantine.broker.rabbitmq;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.apache.camel.spi.Registry;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.pipeline.Settings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.rabbit.config.RetryInterceptorBuilder;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.retry.interceptor.RetryOperationsInterceptor;
import org.springframework.retry.policy.NeverRetryPolicy;
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
 * recovery" and ACKNOWLEDGES the failed message. Ours ({@link RabbitMqListenerAdvice}) never retries
 * in-process: it gives a message without an id one, moves a released message to the retry queue, and
 * requeues any other failed exchange with {@link ImmediateRequeueAmqpException}, which the quorum queue
 * counts. Why a custom error handler: Spring's default one logs every failure with a stack
 * trace and turns some causes (e.g. ClassCastException) into reject-without-requeue, which would
 * dead-letter a message without a quarantine record.
 *
 * <p>Properties, all in application-rabbitmq.properties with their units: {@code rabbitmq.uri},
 * {@code rabbitmq.exchange}, {@code rabbitmq.routing-key}, {@code rabbitmq.queue},
 * {@code rabbitmq.retry-queue} (declared here if missing, as in {@code broker-configs/rabbitmq/definitions.json}),
 * {@code rabbitmq.delivery-limit}, {@code rabbitmq.startup-retry-ms} and {@code rabbitmq.startup-retry-interval-ms}
 * (how long and how often start-up tries again a broker that refuses or drops a connection,
 * {@link StartupRetryingConnectionFactory}) and
 * {@code rabbitmq.dlq-requeue-delay-ms} (pause before a DLQ message whose sweep failed is requeued, so a
 * persistent failure does not spin).
 */
public final class RabbitMqWiring implements BrokerWiring {

    /** Bean name of the consumers' connection factory (the endpoints' {@code connectionFactory}). */
    public static final String CONNECTION_FACTORY = "rabbitConsumers";
    /**
     * Bean name of a connection factory a host has bound before the wiring runs (Spring Boot's, configured by
     * {@code spring.rabbitmq.*}): used instead of two made from {@code rabbitmq.uri}, and left to the host to close.
     */
    public static final String HOSTED_CONNECTION_FACTORY = "rabbitConnectionFactory";
    /** Bean name of the ingest consumer's retry advice ({@link RabbitMqListenerAdvice}). */
    public static final String REQUEUE = "rabbitRequeue";
    /** Bean name of the DLQ sweeper's retry advice: requeue after a pause. */
    public static final String DLQ_REQUEUE = "rabbitDlqRequeue";
    /** Bean name of the listener containers' error handler. */
    public static final String LISTENER_ERRORS = "rabbitListenerErrors";

    private static final Logger LOG = LoggerFactory.getLogger(RabbitMqWiring.class);

    @Override
    public BrokerAdapter open(BrokerSetup setup) {
        Settings settings = setup.settings();
        Registry registry = setup.registry();
        CachingConnectionFactory hosted = registry.lookupByNameAndType(HOSTED_CONNECTION_FACTORY,
                CachingConnectionFactory.class);
        CachingConnectionFactory consumers;
        CachingConnectionFactory publishers;
        if (hosted != null) {
            // the host's factory (Spring Boot's, from spring.rabbitmq.*), closed by the host; the publishers'
            // connections are made by its RabbitMQ client factory, so they reach the same broker as the same user
            consumers = hosted;
            publishers = new CachingConnectionFactory(hosted.getRabbitConnectionFactory());
        } else {
            URI uri = URI.create(settings.required("rabbitmq.uri"));
            consumers = new CachingConnectionFactory(uri);
            consumers.setConnectionNameStrategy(f -> "ingest-quarantine-consumer");
            setup.closeOnStop().accept(consumers::destroy);
            publishers = new CachingConnectionFactory(uri);
        }
        publishers.setConnectionNameStrategy(f -> "ingest-quarantine-publisher");
        publishers.setPublisherConfirmType(CachingConnectionFactory.ConfirmType.SIMPLE);
        setup.closeOnStop().accept(publishers::destroy);

        Duration retryFor = settings.requiredMillis("rabbitmq.startup-retry-ms");
        Duration retryEvery = settings.requiredMillis("rabbitmq.startup-retry-interval-ms");
        RabbitTemplate publisher = new RabbitTemplate(new StartupRetryingConnectionFactory(publishers, retryFor, retryEvery));
        String exchange = settings.required("rabbitmq.exchange");
        String routingKey = settings.required("rabbitmq.routing-key");
        String retryQueue = settings.required("rabbitmq.retry-queue");
        declareRetryQueue(publisher, retryQueue, exchange, routingKey);

        registry.bind(CONNECTION_FACTORY, new StartupRetryingConnectionFactory(consumers, retryFor, retryEvery));
        int deliveryLimit = Integer.parseInt(settings.required("rabbitmq.delivery-limit"));
        registry.bind(REQUEUE, new RabbitMqListenerAdvice(publisher, exchange, routingKey, retryQueue, deliveryLimit));
        registry.bind(DLQ_REQUEUE, requeueAfter(settings.requiredMillis("rabbitmq.dlq-requeue-delay-ms")));
        registry.bind(LISTENER_ERRORS, listenerErrors());
        registry.bind("ingestPublisher", new RabbitMqIngestPublisher(publisher, exchange, routingKey,
                settings.required("rabbitmq.queue")));
        return new RabbitMqBrokerAdapter(setup.journal(), deliveryLimit);
    }

    /**
     * Declares the retry queue with the arguments of {@code definitions.json} (a no-op when it exists with
     * them): quorum, dead-lettering at least once to the ingest exchange with the ingest routing key.
     */
    static void declareRetryQueue(RabbitTemplate template, String queue, String exchange, String routingKey) {
        Map<String, Object> args = Map.of("x-queue-type", "quorum", "x-dead-letter-exchange", exchange,
                "x-dead-letter-routing-key", routingKey, "x-dead-letter-strategy", "at-least-once",
                "x-overflow", "reject-publish");
        try {
            template.execute(ch -> ch.queueDeclare(queue, true, false, false, args));
        } catch (org.springframework.amqp.AmqpException e) {
            // the broker may come later; until the queue exists a release's copy is unroutable, so the
            // message is requeued at once instead (RabbitMqListenerAdvice publishes mandatory)
            LOG.warn("retry queue {} not declared ({}); releases requeue at once until it exists", queue,
                    e.getClass().getSimpleName());
        }
    }

    /**
     * @return the listener containers' error handler ({@value #LISTENER_ERRORS}): one DEBUG line per requeued
     *     message instead of Spring's stack trace
     */
    public static ErrorHandler listenerErrors() {
        return t -> LOG.debug("listener failed; the message is requeued ({})", t.getClass().getSimpleName());
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
