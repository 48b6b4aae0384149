package org.ingestquarantine.scenarios;

/** Ensures the broker scenarios hold on RabbitMQ (quorum queue ingest, DLX ingest.dlx -> ingest.dlq). */
class RabbitMqScenariosIT extends BrokerScenarios {

    @Override
    BrokerFixture fixture() {
        return new RabbitMqFixture();
    }
}
