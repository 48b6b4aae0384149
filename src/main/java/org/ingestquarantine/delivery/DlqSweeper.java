package org.ingestquarantine.delivery;

import java.util.Optional;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes every message in the broker's own dead-letter queue visible in the quarantine table (DESIGN.md
 * §4): a message the broker dead-lettered without a quarantine record for its (source, doc_id), for
 * example because the database was down while the broker's delivery limit ran out, gets one record
 * (reason {@value #REASON}, stage {@value #STAGE}). A message that already has a record gets none.
 * Either way the route then acknowledges it; nothing is published anywhere, so there is no DLQ loop.
 *
 * <p>The error class comes from the message header {@value #ERROR_CLASS_HEADER} when it names one,
 * else it is unclassified. A body that is not an ingest message is keyed like the consumer keys it:
 * source {@link QuarantineRecorder#INVALID_MESSAGES_SOURCE}, doc_id the delivery key. The delivery
 * count stored with the attempt is the dead-letter queue's own delivery count of the message.
 */
public final class DlqSweeper {

    /** Reason code of a record written by the sweeper. */
    public static final String REASON = "broker_dead_lettered";
    /** Stage of a record written by the sweeper. */
    public static final String STAGE = "broker_dlq";
    /** Header that may name the error class (string, e.g. {@code transient}). */
    public static final String ERROR_CLASS_HEADER = "error_class";

    private static final Logger LOG = LoggerFactory.getLogger(DlqSweeper.class);

    private final QuarantineStore store;
    private final BrokerAdapter broker;

    /**
     * @param store the quarantine store
     * @param broker reads the delivery key and count of the dead-lettered message
     */
    public DlqSweeper(QuarantineStore store, BrokerAdapter broker) {
        this.store = store;
        this.broker = broker;
    }

    /**
     * @param exchange a message from the broker's dead-letter queue
     * @return {@code recorded} or {@code already_recorded}
     * @throws QuarantineWriteException when the record cannot be written; the message is then not acknowledged
     */
    public String sweep(Exchange exchange) {
        String key = broker.deliveryKey(exchange);
        IngestMessage message = readOrNull(exchange.getIn().getBody(String.class));
        String source = message == null ? QuarantineRecorder.INVALID_MESSAGES_SOURCE : message.source();
        String docId = message == null ? key : message.docId();
        if (store.find(source, docId).isPresent()) {
            LOG.info("{}/{} from the broker's dead-letter queue already has a quarantine record; acknowledging", source, docId);
            return "already_recorded";
        }
        ErrorClass errorClass = errorClass(exchange.getIn().getHeader(ERROR_CLASS_HEADER, String.class))
                .orElse(ErrorClass.UNCLASSIFIED);
        FailureEvidence.Builder e = FailureEvidence.builder(source, docId)
                .stage(STAGE)
                .errorClass(errorClass)
                .errorType(REASON)
                .errorMessage("the broker dead-lettered this message before a quarantine record was written")
                .reasonCode(REASON)
                .deliveryKey(key)
                .deliveryCount(broker.deliveryCount(exchange));
        if (message != null) {
            e.sourceVersion(message.sourceVersion()).cursorAtArrival(message.cursor()).ingestSeq(message.ingestSeq());
        }
        store.record(e.build());
        LOG.warn("{}/{} was dead-lettered by the broker without a quarantine record; recorded as {}/{}", source, docId,
                errorClass.code(), REASON);
        return "recorded";
    }

    private static IngestMessage readOrNull(String body) {
        try {
            return IngestMessage.parse(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static Optional<ErrorClass> errorClass(String header) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        try {
            return Optional.of(ErrorClass.fromCode(header));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
