package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.ingest.IndexOutcome;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.QuarantineRecorder;

/**
 * Closes a delivery: its attempt in the journal (an indexed or quarantined one was closed by the outcome's own
 * statement, in its transaction: only forgotten here, no round trip), its terminal outcome on the exchange
 * ({@link PipelineKeys#OUTCOME}, which a completed consumer exchange carries to whoever listens to Camel's
 * events) and in the processed/failed counters by source and content type. Called only after the outcome is
 * committed (index written, or quarantine record written), and before the consumer acknowledges the message.
 *
 * <p>An attempt a shutdown abandoned ({@link InFlightAttempts#abandonAll}) was closed as released and its message
 * handed back; if its thread still finishes the document afterwards, that delivery is not settled a second
 * time: it fails with a {@link ShutdownException} (its index write stays; the next delivery finds the document
 * unchanged), so the journal, the broker and the run's summary all keep "released".
 */
public final class Outcomes {

    private static final String QUARANTINED = "quarantined";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Outcomes.class);

    /** {@link PipelineKeys#OUTCOME} of a delivery a route skipped by policy ({@link #skipped}). */
    public static final String SKIPPED = "skipped";

    private final AttemptJournal journal;
    private final PolicySkips skips;
    private final PipelineMetrics metrics;
    private final InFlightAttempts inFlight;
    private final FailureStorm storm;

    /**
     * @param journal closes the delivery's attempt
     * @param skips records a skip by policy with the close of its attempt
     * @param metrics records the outcome
     * @param inFlight knows which attempts a shutdown abandoned
     * @param storm counts every delivery that ended well in its source's window (a quarantined one the failure
     *     route counted)
     */
    public Outcomes(AttemptJournal journal, PolicySkips skips, PipelineMetrics metrics, InFlightAttempts inFlight,
                    FailureStorm storm) {
        this.journal = journal;
        this.skips = java.util.Objects.requireNonNull(skips, "skips");
        this.metrics = metrics;
        this.inFlight = inFlight;
        this.storm = java.util.Objects.requireNonNull(storm, "storm");
    }

    /**
     * @param exchange a delivery whose index write committed
     * @param outcome the index's verdict
     */
    public void indexed(Exchange exchange, IndexOutcome outcome) {
        refuseAbandoned(exchange);
        String name = switch (outcome) {
            case INDEXED -> "indexed";
            case UNCHANGED -> "unchanged";
            case STALE_REJECTED -> "stale";
        };
        // the index write closed the attempt in its own statement (indexed or skipped)
        closedByOutcome(exchange);
        settle(exchange, name);
    }

    /** @param exchange a delivery skipped because the index already holds this version */
    public void unchanged(Exchange exchange) {
        refuseAbandoned(exchange);
        close(exchange, AttemptOutcome.SKIPPED);
        settle(exchange, "unchanged");
    }

    /**
     * A route's own rule chose not to index the document (routes/README.md, "skip by page count"): the attempt
     * is closed as {@code skipped_by_policy} and the skip recorded ({@link PolicySkips}) in one statement; the
     * delivery is settled ({@value #SKIPPED}) and acknowledged. The route ends the delivery after it
     * ({@code stop}).
     *
     * @param exchange a delivery that was admitted
     * @param reason a short label of the route author's ({@value PolicySkips#REASON_FORM}), never document text
     * @throws IllegalArgumentException when the reason is not such a label (a route bug)
     */
    public void skipped(Exchange exchange, String reason) {
        refuseAbandoned(exchange);
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        FetchedDocument fetched = exchange.getProperty(PipelineKeys.FETCHED, FetchedDocument.class);
        PolicySkips.Skip skip = new PolicySkips.Skip(message.source(), message.docId(),
                fetched == null ? message.sourceVersion() : fetched.sourceVersion(),
                fetched == null ? null : fetched.sha256(), reason);
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            skips.record(attemptId, skip);
        }
        metrics.skipped(message.source(), fetched == null ? null : fetched.contentType(), reason);
        settle(exchange, SKIPPED);
    }

    /** @param exchange a delivery whose quarantine record committed */
    public void quarantined(Exchange exchange) {
        // the quarantine record's statement closed the attempt (sql/quarantine-record.sql)
        closedByOutcome(exchange);
        settle(exchange, QUARANTINED);
    }

    /**
     * A delivery handed back to the broker for a later redelivery: its attempt is closed as
     * {@link AttemptOutcome#PIPELINE_FAULT} when a fault of our own route failed it, as
     * {@link AttemptOutcome#STORM_PAUSED} when its source was paused ({@link SourcePausedException}): no budget counts
     * either; as the same delivery to be tried again when its quarantine record could not be written
     * ({@link AttemptJournal#closeRecordNotWritten}); else as released. Bound by Camel from the exchange's properties.
     *
     * @param caught the failure the error handler caught ({@link Exchange#EXCEPTION_CAUGHT}), or null
     * @param recordNotWritten {@link PipelineKeys#RECORD_NOT_WRITTEN}, or null
     * @param attemptId the delivery's open attempt ({@link PipelineKeys#ATTEMPT_ID}), or null when none was opened
     * @param failure the failure's classification ({@link PipelineKeys#FAILURE}), or null
     */
    public void released(@ExchangeProperty(Exchange.EXCEPTION_CAUGHT) Throwable caught,
                         @ExchangeProperty(PipelineKeys.RECORD_NOT_WRITTEN) Boolean recordNotWritten,
                         @ExchangeProperty(PipelineKeys.ATTEMPT_ID) Long attemptId,
                         @ExchangeProperty(PipelineKeys.FAILURE) Classification failure) {
        if (attemptId == null) {
            return;
        }
        if (caught instanceof SourcePausedException) {
            journal.close(attemptId, AttemptOutcome.STORM_PAUSED);
        } else if (Boolean.TRUE.equals(recordNotWritten)) {
            // decided, not recorded: the next delivery is this one tried again, not another (AttemptJournal)
            journal.closeRecordNotWritten(attemptId);
        } else {
            journal.close(attemptId, failure != null && !failure.errorClass().chargedToDocument()
                    ? AttemptOutcome.PIPELINE_FAULT : AttemptOutcome.RELEASED);
        }
    }

    /** @throws ShutdownException when a shutdown abandoned this delivery's attempt (released it already) */
    private void refuseAbandoned(Exchange exchange) {
        if (inFlight.isAbandoned(exchange)) {
            throw new ShutdownException("finished after the shutdown released it; not settled again", null);
        }
    }

    private void close(Exchange exchange, AttemptOutcome outcome) {
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            journal.close(attemptId, outcome);
        }
    }

    private void closedByOutcome(Exchange exchange) {
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            journal.closedByOutcome(attemptId);
        }
    }

    private void settle(Exchange exchange, String outcome) {
        exchange.setProperty(PipelineKeys.OUTCOME, outcome);
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        RecordKey key = QuarantineRecorder.keyOf(exchange);
        String source = key.source();
        // an unreadable message by its delivery key, as before; one kept under its configured source by its record
        LOG.info("{} {}", message == null && RecordKey.isReservedSource(source)
                ? LogSafe.identity(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class)) : key.logForm(), outcome);
        FetchedDocument fetched = exchange.getProperty(PipelineKeys.FETCHED, FetchedDocument.class);
        metrics.settled(source, fetched == null ? null : fetched.contentType(), QUARANTINED.equals(outcome));
        if (message != null && !QUARANTINED.equals(outcome)) {
            storm.settled(message.source());
        }
    }
}
