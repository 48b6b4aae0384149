package org.ingestquarantine.app;

import java.util.Map;
import java.util.function.Supplier;
import org.ingestquarantine.broker.kafka.KafkaWiring;
import org.ingestquarantine.broker.rabbitmq.RabbitMqWiring;
import org.ingestquarantine.broker.sqs.SqsWiring;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.pipeline.Settings;

/** The broker a profile names in {@code broker.kind} (sqs | rabbitmq | kafka), with its {@code <kind>.*} keys. */
final class BrokerChoice {

    /** The brokers a profile can name in {@code broker.kind}, a new wiring per start. */
    private static final Map<String, Supplier<BrokerWiring>> BROKERS = Map.of(
            "sqs", SqsWiring::new, "rabbitmq", RabbitMqWiring::new, "kafka", KafkaWiring::new);

    private BrokerChoice() {
    }

    /**
     * @return a new wiring of the broker {@code broker.kind} names
     * @throws IllegalStateException naming the brokers there are, when it names none of them
     */
    static BrokerWiring of(Settings settings) {
        String kind = settings.required("broker.kind");
        Supplier<BrokerWiring> wiring = BROKERS.get(kind);
        if (wiring == null) {
            throw new IllegalStateException("broker.kind=" + kind + " is unknown; use one of " + BROKERS.keySet());
        }
        return wiring.get();
    }
}
