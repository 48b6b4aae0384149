package org.ingestquarantine.scenarios;

/** Ensures the broker scenarios hold on SQS (the embedded profile's ElasticMQ). */
class SqsScenariosIT extends BrokerScenarios {

    @Override
    BrokerFixture fixture() {
        return new SqsFixture();
    }
}
