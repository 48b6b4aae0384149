package org.ingestquarantine.delivery;

import org.ingestquarantine.pipeline.Settings;

/**
 * How one broker is wired into the application: the one signature every broker package implements
 * ({@code broker.sqs.SqsWiring}, {@code broker.rabbitmq.RabbitMqWiring}, {@code broker.kafka.KafkaWiring}).
 * The profile's {@code broker.kind} picks one; it reads its keys from the profile's properties, binds the
 * beans its consumer URI names (and {@code ingestPublisher}) in the registry, and returns the adapter
 * that the delivery lifecycle uses.
 */
@FunctionalInterface
public interface BrokerWiring {

    /**
     * Starts, in the background, what the broker needs that depends on nothing else of the application (an
     * embedded server, its clients, its queues), so that it runs while the database starts; {@link #open}
     * waits for it and reports its failure. Called at most once, before {@link #open}, on a wiring made for one
     * application start. Default: nothing starts early.
     *
     * @param settings the application's properties
     * @return closes what was started early unless {@link #open} took it over (start-up failed before it)
     */
    default AutoCloseable startEarly(Settings settings) {
        return () -> { };
    }

    /**
     * @param setup what a broker may read and where it binds its beans
     * @return the broker adapter
     * @throws Exception when the broker's clients cannot be created; start-up then fails
     */
    BrokerAdapter open(BrokerSetup setup) throws Exception;
}
