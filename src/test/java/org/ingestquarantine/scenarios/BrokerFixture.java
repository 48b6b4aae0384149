package org.ingestquarantine.scenarios;

import java.util.Map;

/**
 * One real broker for the scenario suite: how to point the application at it, and how to observe it
 * from outside the pipeline. Implementations: {@link SqsFixture} (ElasticMQ); RabbitMQ and Kafka
 * fixtures plug in the same way.
 */
public interface BrokerFixture extends AutoCloseable {

    /** @return sqs, rabbitmq or kafka */
    String name();

    /** @return the application profile to run: embedded, rabbitmq or kafka */
    String profile();

    /**
     * Called before the application starts, so the fixture can start the broker and any observer.
     *
     * @return properties that point the application at this broker (override the profile's file)
     * @throws Exception when the broker cannot be started
     */
    Map<String, String> start() throws Exception;

    /**
     * @param deliveryKey a delivery key the application's publisher returned
     * @return how many times the broker handed this message to a consumer, observed outside the pipeline
     */
    int deliveries(String deliveryKey);

    /**
     * @return messages in the broker's own dead-letter queue (SQS redrive, RabbitMQ DLX, Kafka {@code <topic>.dlq})
     * @throws Exception when the broker cannot be asked
     */
    long deadLettered() throws Exception;

    /** @return the profile a consumer in its own JVM runs against this broker; default {@link #profile()} */
    default String externalProfile() {
        return profile();
    }

    /**
     * Called after {@link #start()}, while the pipeline started on this fixture runs (it may own the broker,
     * as the embedded profile owns ElasticMQ).
     *
     * @return properties that point a consumer in its own JVM ({@link #externalProfile()}) at this broker,
     *     which stays up when that consumer is killed
     * @throws Exception when they cannot be worked out
     */
    Map<String, String> externalConsumerProperties() throws Exception;

    /** @return whether {@link #restartBroker()} is supported (false: restart scenarios are skipped) */
    default boolean canRestart() {
        return false;
    }

    /**
     * Stops the broker and starts it again, keeping its durable queues and persistent messages; returns
     * once it accepts connections.
     *
     * @throws Exception when the broker does not come back
     */
    default void restartBroker() throws Exception {
        throw new UnsupportedOperationException(name() + " cannot be restarted by its fixture");
    }

    /**
     * @return whether the broker's dead-letter queue also receives every quarantined message (Kafka copies
     *     each to {@code <topic>.dlq} with its record's headers), rather than only what the consumer could
     *     not handle at all (SQS redrive); default false
     */
    default boolean copiesQuarantinedToDeadLetters() {
        return false;
    }

    @Override
    void close() throws Exception;
}
