package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delivery count of a failed delivery, for {@link FailureDisposition}: deliveries so far counting the current
 * one ({@link PipelineKeys#DELIVERY_COUNT}), and the part of it charged to the document (less the deliveries a
 * route fault released or a storm pause handed back). A delivery that failed before admission counted it (Kafka)
 * has its count read from the broker once and kept on the exchange. Thread-safe.
 */
final class DeliveryCounts {

    private static final Logger LOG = LoggerFactory.getLogger(FailureDisposition.class);
    /**
     * Exchange property set once the broker's count could not be read for this delivery: it is not asked again
     * (each ask waits out the pool's connection timeout while the database is down).
     */
    private static final String COUNT_UNREAD = "iqDeliveryCountUnread";

    /** Counts a delivery whose count is not on the exchange yet (Kafka, failed before admission); may be null. */
    private final BrokerAdapter broker;

    /** @param broker reads a count not on the exchange yet; null: the count is only taken from the exchange */
    DeliveryCounts(BrokerAdapter broker) {
        this.broker = broker;
    }

    /** @return the delivery count, 1 if unknown */
    int count(Exchange exchange) {
        Integer count = known(exchange);
        return count == null ? 1 : count;
    }

    /**
     * @return the delivery count less the earlier deliveries a route fault released or a storm pause handed back, at
     *     least 1; null if unknown
     */
    Integer charged(Exchange exchange) {
        Integer count = known(exchange);
        if (count == null) {
            return null;
        }
        int uncharged = exchange.getProperty(PipelineKeys.PIPELINE_FAULTS, 0, Integer.class)
                + exchange.getProperty(PipelineKeys.STORM_PAUSES, 0, Integer.class);
        return Math.max(1, count - uncharged);
    }

    /**
     * @return the delivery count on the exchange; if there is none yet (Kafka, failed before admission), the
     *     broker's, read once per delivery and kept on the exchange; null if it cannot be read (database
     *     unreachable: not asked again for this delivery) or there is no key
     */
    private Integer known(Exchange exchange) {
        Integer count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        if (count != null || broker == null || exchange.getProperty(PipelineKeys.DELIVERY_KEY) == null
                || exchange.getProperty(COUNT_UNREAD) != null) {
            return count;
        }
        try {
            count = broker.deliveryCount(exchange);
        } catch (RuntimeException e) {
            LOG.warn("{}: delivery count not read ({})", who(exchange), e.getClass().getSimpleName());
            exchange.setProperty(COUNT_UNREAD, Boolean.TRUE);
            return null;
        }
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, count);
        return count;
    }

    /** @return the delivery's identity for a log line: source/doc id, or its delivery key; never document text */
    static String who(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        return message == null ? LogSafe.identity(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class))
                : LogSafe.identity(message.source()) + "/" + LogSafe.identity(message.docId());
    }
}
