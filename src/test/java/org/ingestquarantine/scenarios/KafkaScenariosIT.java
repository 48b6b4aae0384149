package org.ingestquarantine.scenarios;

/** Ensures the broker scenarios hold on Kafka (the kafka profile against a real KRaft broker). */
class KafkaScenariosIT extends BrokerScenarios {

    @Override
    BrokerFixture fixture() {
        return new KafkaFixture();
    }

    /** One partition, so the good documents really are behind the poison one. */
    @Override
    BrokerFixture orderedFixture() {
        return new KafkaFixture(1);
    }
}
