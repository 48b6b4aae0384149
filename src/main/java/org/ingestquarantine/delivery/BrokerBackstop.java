package org.ingestquarantine.delivery;

import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;

/**
 * The broker's own dead-letter limit: the deliveries it allows a message before it dead-letters it itself, where
 * the DLQ sweep (routes/dlq-sweeper.camel.yaml) records it as {@code unclassified/broker_dead_lettered} and its class
 * is lost. Every class's budget must end below it: the last delivery of a budget must leave the broker at least one
 * more, which a death or a hand-back (another attempt live) also spends on a broker that counts receives.
 *
 * @param deliveries deliveries the broker allows a message (SQS: the queue's RedrivePolicy maxReceiveCount;
 *     RabbitMQ: {@code x-delivery-limit} + 1)
 * @param described what sets it, for the refusal, e.g. "the SQS queue ingest's maxReceiveCount 10 (its RedrivePolicy)"
 */
public record BrokerBackstop(int deliveries, String described) {

    /**
     * @param policies the class budgets, {@code failure.<class>.retries}
     * @throws IllegalStateException naming the first class whose deliveries (retries + 1) reach the backstop
     */
    public void checkBelow(RedeliveryPolicies policies) {
        for (ErrorClass c : ErrorClass.values()) {
            if (!c.chargedToDocument()) {
                continue; // pipeline_fault has no budget: never quarantined, never charged
            }
            int retries = policies.forClass(c).retries();
            long classDeliveries = retries + 1L;
            if (classDeliveries >= deliveries) {
                throw new IllegalStateException("failure." + c.code() + ".retries=" + retries + " gives "
                        + classDeliveries + " deliveries, at or above " + described
                        + ": raise the backstop above every budget or lower the budget");
            }
        }
    }
}
