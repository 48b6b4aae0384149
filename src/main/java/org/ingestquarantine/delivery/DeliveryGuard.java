package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * First step of every delivery, before any work: records the broker's delivery identity and count,
 * refuses a message whose earlier attempts died, and opens this attempt in the journal.
 *
 * <p>A death is an attempt that was opened and never closed (DESIGN.md §2): a delivery whose earlier
 * attempt ended with a recorded outcome, say a transient failure that released the message, is not a
 * death. Once the deaths reach the resource_fatal budget ({@code retries + 1}), this delivery throws
 * {@link ConsumerDiedException} and the message is quarantined as resource_fatal without being
 * processed again.
 */
public final class DeliveryGuard {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(DeliveryGuard.class);

    private final BrokerAdapter broker;
    private final AttemptJournal journal;
    private final RedeliveryPolicies policies;
    private final InFlightAttempts inFlight;

    /**
     * @param broker reads the delivery key and count
     * @param journal the attempt journal
     * @param policies gives the resource_fatal budget
     * @param inFlight remembers every attempt opened until its exchange completes (for the shutdown)
     */
    public DeliveryGuard(BrokerAdapter broker, AttemptJournal journal, RedeliveryPolicies policies,
                         InFlightAttempts inFlight) {
        this.broker = broker;
        this.journal = journal;
        this.policies = policies;
        this.inFlight = inFlight;
    }

    /**
     * Reads the delivery key and count into the exchange. On SQS and RabbitMQ this does no I/O, so it
     * cannot fail for a database outage; the failure route relies on these two properties. On Kafka the
     * count is read from the journal ({@link KafkaBrokerAdapter}); the key is set first, so a failing read
     * still leaves the key, and the record is not committed.
     *
     * @param exchange the consumed message
     */
    public void capture(Exchange exchange) {
        exchange.setProperty(PipelineKeys.STAGE, "receive");
        exchange.setProperty(PipelineKeys.DELIVERY_KEY, broker.deliveryKey(exchange));
        exchange.setProperty(PipelineKeys.DELIVERY_COUNT, broker.deliveryCount(exchange));
    }

    /**
     * @param exchange the consumed message, after {@link #capture} and after the message was read
     * @throws ConsumerDiedException when earlier attempts died as often as resource_fatal allows
     * @throws ShutdownException when this process is stopping (no attempt is opened; the message goes back)
     */
    public void admit(Exchange exchange) {
        if (inFlight.isStopping()) {
            throw new ShutdownException("delivered while this process is stopping; handed back unworked", null);
        }
        String key = exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class);
        int count = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);
        Deaths deaths = journal.deaths(key);
        if (count > 1 || deaths.count() > 0) {
            LOG.info("{} delivered {} times; {} earlier attempt(s) never finished", LogSafe.identity(key), count,
                    deaths.count());
        }
        if (deaths.count() >= policies.forClass(ErrorClass.RESOURCE_FATAL).maxDeliveries()) {
            if (deaths.lastStage() != null) {
                exchange.setProperty(PipelineKeys.STAGE, deaths.lastStage());
            }
            throw new ConsumerDiedException(deaths.count(), deaths.lastStage());
        }
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        long attemptId = journal.open(key, message.source(), message.docId(), count);
        exchange.setProperty(PipelineKeys.ATTEMPT_ID, attemptId);
        inFlight.add(attemptId, exchange);
    }
}
