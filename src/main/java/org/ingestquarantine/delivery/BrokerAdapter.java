package org.ingestquarantine.delivery;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * What differs between brokers once a message is in a Camel exchange: its identity, how many times it
 * has been delivered, and how to hand it back for a later redelivery. Acknowledgement itself is the
 * consumer's: a completed exchange is acknowledged, a failed one is not.
 */
public interface BrokerAdapter {

    /**
     * @param exchange a consumed message
     * @return a key that stays the same across redeliveries of this message
     */
    String deliveryKey(Exchange exchange);

    /**
     * @param exchange a consumed message
     * @return deliveries so far counting this one: 1 on the first delivery, with one meaning on every
     *     broker (SQS ApproximateReceiveCount; RabbitMQ x-delivery-count + 1; Kafka: the attempt journal)
     */
    int deliveryCount(Exchange exchange);

    /**
     * @return true if the broker keeps no delivery count and {@link #deliveryCount} reads the attempt journal
     *     (Kafka): {@link DeliveryGuard} then has the journal count it in the statement that opens the attempt
     *     ({@link AttemptJournal#admit} with no count) instead of in a round trip of its own; default false
     */
    default boolean countsInJournal() {
        return false;
    }

    /**
     * Arranges for the message to come back after {@code delay}. The exchange then fails, so the consumer
     * does not acknowledge it.
     *
     * @param exchange a consumed message
     * @param delay how long the broker should hold it back; the broker may round it
     */
    void release(Exchange exchange, Duration delay);

    /**
     * @return true if a released message comes back before the messages behind it, so that handing it back holds up
     *     the others as long as keeping it would (Kafka: the consumer seeks the record's partition back to it); false
     *     where the others pass it while it waits (SQS's visibility timeout, RabbitMQ's retry queue), the default
     */
    default boolean releaseComesBackFirst() {
        return false;
    }

    /**
     * Before the quarantine record's statement (routes/quarantine.camel.yaml): adds to its row, the exchange's
     * body ({@link QuarantineStore#evidenceRow}), the copy the broker's dead-letter topic gets
     * ({@link QuarantineStore#addDeadLetterCopy}), so that the statement writes it in the record's transaction
     * and it exists if and only if the record committed. Default: no copy (SQS and RabbitMQ dead-letter through
     * their own redrive; only Kafka copies a quarantined record).
     *
     * @param exchange a delivery being quarantined, its body the record's row (a mutable map)
     */
    default void addDeadLetterCopy(Exchange exchange) {
    }

    /**
     * @return the delivery count at which the broker's own redrive takes the message: a message released at this
     *     count is dead-lettered by the broker at its next receive instead of being delivered (SQS: the ingest
     *     queue's RedrivePolicy maxReceiveCount, whose every receive counts, hand-backs included);
     *     {@link Integer#MAX_VALUE} when a release never brings the broker's count nearer its limit (RabbitMQ
     *     hands back through a fresh copy in its retry queue, Kafka keeps no broker count)
     */
    default int redriveAt() {
        return Integer.MAX_VALUE;
    }

    /**
     * @return the broker's own dead-letter limit, which every class's budget must stay below (checked at start-up);
     *     empty where the broker has none (Kafka: the attempt journal counts and our code writes its dead-letter
     *     topic; an SQS queue without a RedrivePolicy)
     */
    default java.util.Optional<BrokerBackstop> backstop() {
        return java.util.Optional.empty();
    }
}
