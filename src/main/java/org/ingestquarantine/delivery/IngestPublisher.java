package org.ingestquarantine.delivery;

import org.ingestquarantine.pipeline.IngestMessage;

/** Publishes ingest messages to the profile's broker, as any producer would. */
public interface IngestPublisher {

    /**
     * @param message the message
     * @return the delivery key the consumer will see for it ({@link BrokerAdapter#deliveryKey})
     */
    String publish(IngestMessage message);

    /**
     * Publishes a body as it is, valid or not: for tests and for replaying captured messages.
     *
     * @param body the message body
     * @return the delivery key the consumer will see for it
     */
    String publishRaw(String body);

    /** @return messages still on the broker's ingest queue (visible, in flight or delayed), or -1 if unknown */
    long pending();
}
