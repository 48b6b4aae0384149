package org.ingestquarantine.delivery;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.FailureEvidence;
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
 * else it is unclassified. A body that is not an ingest message is keyed like the consumer keys it
 * ({@link MessageReader#keyOf}): a configured source's message with an invalid doc_id under that source, doc_id
 * {@value RecordKey#INVALID_DOC_ID_PREFIX} and the doc_id's digest; any other under source
 * {@value RecordKey#INVALID_MESSAGES_SOURCE}, doc_id the delivery key. The delivery
 * count stored with the attempt is the dead-letter queue's own delivery count of the message.
 *
 * <p>A record that cannot be written (the database is down, or refuses the row: a program limit, a
 * constraint) is not retried at the broker's pace forever: the message stays unacknowledged in the
 * dead-letter queue, one ERROR line says so, and further writes for it wait a back-off that doubles from
 * {@code dlq.sweep-backoff-initial-ms} up to {@code dlq.sweep-backoff-max-ms}; a delivery that comes back
 * sooner is left in the queue again without touching the database or the log.
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
    private final MessageReader reader;
    private final BrokerAdapter broker;
    private final Clock clock;
    private final Duration backoffInitial;
    private final Duration backoffMax;
    private final Map<String, Deferred> deferred = new ConcurrentHashMap<>();

    /** A message whose record could not be written: how often, and not before when to try again. */
    private record Deferred(int failures, Instant retryAt) {
    }

    /**
     * @param store the quarantine store
     * @param reader reads the message and names its record's key, as the consumer does
     * @param broker reads the delivery key and count of the dead-lettered message
     * @param clock for the back-off
     * @param backoffInitial wait after the first failed write (property {@code dlq.sweep-backoff-initial-ms})
     * @param backoffMax longest wait between writes (property {@code dlq.sweep-backoff-max-ms})
     */
    public DlqSweeper(QuarantineStore store, MessageReader reader, BrokerAdapter broker, Clock clock,
                      Duration backoffInitial, Duration backoffMax) {
        this.store = store;
        this.reader = reader;
        this.broker = broker;
        this.clock = clock;
        this.backoffInitial = backoffInitial;
        this.backoffMax = backoffMax;
    }

    /**
     * @param exchange a message from the broker's dead-letter queue
     * @return {@code recorded} or {@code already_recorded}
     * @throws QuarantineWriteException when the record cannot be written; the message is then not acknowledged
     * @throws SweepDeferredException when an earlier write failed and its back-off has not passed; the message
     *     stays in the dead-letter queue
     */
    public String sweep(Exchange exchange) {
        String key = broker.deliveryKey(exchange);
        Deferred d = deferred.get(key);
        if (d != null && clock.instant().isBefore(d.retryAt())) {
            // left for redelivery, quietly (QuietRollbackHandler): the ERROR line was written at the failure
            exchange.setProperty(PipelineKeys.DISPOSITION, "release");
            throw new SweepDeferredException("the quarantine record of dead-lettered message " + LogSafe.identity(key)
                    + " is not retried before " + d.retryAt());
        }
        try {
            String result = record(exchange, key);
            deferred.remove(key);
            return result;
        } catch (RuntimeException e) {
            int failures = d == null ? 1 : d.failures() + 1;
            Duration wait = backoff(failures);
            deferred.put(key, new Deferred(failures, clock.instant().plus(wait)));
            LOG.error("dead-lettered message {} could not be recorded in the quarantine table ({}), failure {}; it stays"
                    + " in the broker's dead-letter queue and is tried again in {} s", LogSafe.identity(key),
                    LogSafe.identity(e.getMessage()), failures, wait.toSeconds());
            throw e;
        }
    }

    /** @return the wait after {@code failures} failed writes: doubling from the initial back-off, capped */
    Duration backoff(int failures) {
        Duration wait = backoffInitial;
        for (int i = 1; i < failures && wait.compareTo(backoffMax) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(backoffMax) > 0 ? backoffMax : wait;
    }

    private String record(Exchange exchange, String key) {
        String body = exchange.getIn().getBody(String.class);
        IngestMessage message = readOrNull(body);
        RecordKey recordKey = reader.keyOf(body, key);
        String source = recordKey.source();
        String docId = recordKey.docId();
        if (store.find(source, docId).isPresent()) {
            LOG.info("{}/{} from the broker's dead-letter queue already has a quarantine record; acknowledging",
                    LogSafe.identity(source), LogSafe.identity(docId));
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
        LOG.warn("{}/{} was dead-lettered by the broker without a quarantine record; recorded as {}/{}",
                LogSafe.identity(source), LogSafe.identity(docId),
                errorClass.code(), REASON);
        return "recorded";
    }

    /** A dead-lettered message whose earlier record write failed comes back before its back-off passed. */
    public static final class SweepDeferredException extends RuntimeException {
        SweepDeferredException(String message) {
            super(message, null, false, false);
        }
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
