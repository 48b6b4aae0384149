package org.ingestquarantine.delivery;

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
     * @param setup what a broker may read and where it binds its beans
     * @return the broker adapter
     * @throws Exception when the broker's clients cannot be created; start-up then fails
     */
    BrokerAdapter open(BrokerSetup setup) throws Exception;
}
