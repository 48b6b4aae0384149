package org.ingestquarantine.pipeline;

/**
 * Names of the exchange properties the pipeline stages hand to each other. Properties, not headers:
 * nothing here leaves the process, and none of it is document text. The names have no dots, so that the
 * Simple language in the route files can read them ({@code ${exchangeProperty.iqStage}}).
 */
public final class PipelineKeys {

    /** The parsed {@link IngestMessage}. */
    public static final String MESSAGE = "iqMessage";
    /** The broker's identity of this message (SQS message id, Kafka topic/partition/offset). */
    public static final String DELIVERY_KEY = "iqDeliveryKey";
    /** Deliveries of this message so far, counting the current one (1 on the first). */
    public static final String DELIVERY_COUNT = "iqDeliveryCount";
    /** Id of this delivery's row in the attempt journal. */
    public static final String ATTEMPT_ID = "iqAttemptId";
    /** The stage the document is in: guard, preflight, fetch, parse, chunk, embed, index. */
    public static final String STAGE = "iqStage";
    /** The {@link SourceHead} from preflight. */
    public static final String HEAD = "iqHead";
    /** The {@link FetchedDocument}. */
    public static final String FETCHED = "iqFetched";
    /** The parser's result. */
    public static final String PARSED = "iqParsed";
    /** The chunks, then the chunks with their vectors. */
    public static final String CHUNKS = "iqChunks";
    /** Set when the stored document is already current: the rest of the pipeline is skipped. */
    public static final String UNCHANGED = "iqUnchanged";
    /** The error class chosen by the route configuration's onException clause. */
    public static final String ERROR_CLASS = "iqErrorClass";
    /** {@code quarantine} or {@code release}, decided after a failure. */
    public static final String DISPOSITION = "iqDisposition";
    /** The back-off before redelivery, a {@link java.time.Duration}, decided after a failure. */
    public static final String BACKOFF = "iqBackoff";

    private PipelineKeys() {
    }
}
