package org.ingestquarantine.pipeline;

/**
 * Names of the exchange properties: the delivery's metadata, never the document (the body carries the
 * document from stage to stage). Properties, not headers: nothing here leaves the process, and none of it
 * is document text. The names have no dots, so that the
 * Simple language in the route files can read them ({@code ${exchangeProperty.iqStage}}).
 */
public final class PipelineKeys {

    /** The parsed {@link IngestMessage}. */
    public static final String MESSAGE = "iqMessage";
    /**
     * The {@link RecordKey} a failure of this delivery is recorded under: the message's own (source, doc_id), or
     * for a message that could not be read the reserved key the reader named; absent before the message is read.
     */
    public static final String RECORD_KEY = "iqRecordKey";
    /**
     * The message's URI as text once its source's trust check ({@code ingest.SourceAccess}) admitted it, at
     * preflight: the URI its quarantine record keeps. Absent before the check and for a URI it refused.
     */
    public static final String SOURCE_URI = "iqSourceUri";
    /** The broker's identity of this message (SQS message id, Kafka topic/partition/offset). */
    public static final String DELIVERY_KEY = "iqDeliveryKey";
    /** Deliveries of this message so far, counting the current one (1 on the first). */
    public static final String DELIVERY_COUNT = "iqDeliveryCount";
    /** Id of this delivery's row in the attempt journal. */
    public static final String ATTEMPT_ID = "iqAttemptId";
    /**
     * Earlier deliveries of this message that a fault of our own route released ({@code pipeline_fault}), from the
     * attempt journal: left out of the count a class's budget is compared with (an {@code Integer}, 0 when none).
     */
    public static final String PIPELINE_FAULTS = "iqPipelineFaults";
    /**
     * Earlier deliveries of this message handed back unworked while the failure-storm breaker had paused its source
     * ({@code storm_paused}), from the attempt journal: left out of the count a class's budget is compared with, as
     * {@link #PIPELINE_FAULTS} are (an {@code Integer}, 0 when none).
     */
    public static final String STORM_PAUSES = "iqStormPauses";
    /**
     * Set ({@code Boolean.TRUE}) on a delivery whose failure's quarantine record could not be committed
     * ({@code delivery.FailureDisposition#recordNotWritten}): its release closes the attempt so that the journal does
     * not count the next delivery as another one ({@code delivery.AttemptJournal#closeRecordNotWritten}).
     */
    public static final String RECORD_NOT_WRITTEN = "iqRecordNotWritten";
    /** The stage the document is in: receive, then the route's step ids (preflight, fetch, parse, ...). */
    public static final String STAGE = "iqStage";
    /**
     * The version of the document the index held as searchable when the delivery was admitted
     * ({@code ingest.IndexedVersion}, read with the attempt's open); absent if none.
     */
    public static final String INDEXED = "iqIndexed";
    /**
     * {@code true} when the document had an OPEN quarantine record when the delivery was admitted (read with the
     * attempt's open): its index write closes the record in the same transaction; absent otherwise.
     */
    public static final String OPEN_RECORD = "iqOpenRecord";
    /**
     * The fetched document's handle (work file, sha256, source version, content type): kept for the evidence
     * record, whose payload it is. The document itself travels in the body.
     */
    public static final String FETCHED = "iqFetched";
    /** The failure's {@code failure.Classification}, decided once when the failure occurs. */
    public static final String FAILURE = "iqFailure";
    /** {@code quarantine} or {@code release}, decided after a failure. */
    public static final String DISPOSITION = "iqDisposition";
    /** The delivery's terminal outcome once committed: indexed, unchanged, stale, skipped (by a route's policy),
     * quarantined, or abandoned (no outcome; set as the delivery ends, {@code delivery.AbandonedDelivery}). */
    public static final String OUTCOME = "iqOutcome";
    /** The back-off before redelivery, a {@link java.time.Duration}, decided after a failure. */
    public static final String BACKOFF = "iqBackoff";
    /**
     * {@code true} when another attempt at this message, which this delivery waited for, committed its
     * outcome: the delivery is acknowledged with no work of its own.
     */
    public static final String SETTLED_ELSEWHERE = "iqSettledElsewhere";

    private PipelineKeys() {
    }
}
