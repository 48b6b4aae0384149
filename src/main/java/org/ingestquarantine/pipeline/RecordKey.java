package org.ingestquarantine.pipeline;

import java.util.Objects;

/**
 * The (source, doc_id) a delivery's quarantine record, log lines and metrics are keyed by. For a message that was
 * read, its own source and doc_id. For one that was not:
 * <ul>
 *   <li>a valid source this process is configured for, with a doc_id that breaks the schema (too long, a control
 *       character, the reserved prefix): that source, doc_id {@value #INVALID_DOC_ID_PREFIX}{@code <delivery key>}
 *       ({@link #invalidDocId}), so the source's coverage counts the document;</li>
 *   <li>anything else (not JSON, no source, an invalid or unconfigured source, a missing field):
 *       source {@value #INVALID_MESSAGES_SOURCE}, doc_id the delivery key ({@link #unreadable}), so a producer
 *       never creates rows under a name of its own choosing.</li>
 * </ul>
 * Neither reserved form carries producer text: the delivery key is the broker's. No message can carry either:
 * {@link IngestMessage#parse} refuses a doc_id beginning with {@value #INVALID_DOC_ID_PREFIX}, and the
 * {@code ingest} command refuses {@value #INVALID_MESSAGES_SOURCE} as a source.
 *
 * @param source the record's source
 * @param docId the record's doc_id
 */
public record RecordKey(String source, String docId) {

    /** Source of the records of messages that could not be attributed to a configured source. */
    public static final String INVALID_MESSAGES_SOURCE = "_invalid_messages";
    /** Prefix of the doc_id of a configured source's message whose doc_id is invalid; the delivery key follows. */
    public static final String INVALID_DOC_ID_PREFIX = "_invalid_doc_id/";

    /**
     * @param source the record's source, not null
     * @param docId the record's doc_id, not null
     */
    public RecordKey {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(docId, "docId");
    }

    /**
     * @param message a message that was read
     * @return its source and doc_id
     */
    public static RecordKey of(IngestMessage message) {
        return new RecordKey(message.source(), message.docId());
    }

    /**
     * @param deliveryKey the broker's identity of the message
     * @return {@value #INVALID_MESSAGES_SOURCE} / the delivery key
     */
    public static RecordKey unreadable(String deliveryKey) {
        return new RecordKey(INVALID_MESSAGES_SOURCE, String.valueOf(deliveryKey));
    }

    /**
     * @param source the message's source: valid and configured (the caller checked)
     * @param deliveryKey the broker's identity of the message
     * @return the source / {@value #INVALID_DOC_ID_PREFIX}{@code <delivery key>}
     */
    public static RecordKey invalidDocId(String source, String deliveryKey) {
        return new RecordKey(source, INVALID_DOC_ID_PREFIX + deliveryKey);
    }

    /**
     * @param docId a recorded doc_id
     * @return whether it is the reserved form of {@link #invalidDocId}: no document of that name exists at the source
     */
    public static boolean isInvalidDocId(String docId) {
        return docId != null && docId.startsWith(INVALID_DOC_ID_PREFIX);
    }

    /**
     * @param source a source name
     * @return whether it is reserved ({@value #INVALID_MESSAGES_SOURCE}), never a configured source's name
     */
    public static boolean isReservedSource(String source) {
        return INVALID_MESSAGES_SOURCE.equals(source);
    }

    /** @return {@code source/doc_id}, each escaped and bounded ({@link LogSafe#identity}), for a log line */
    public String logForm() {
        return LogSafe.identity(source) + "/" + LogSafe.identity(docId);
    }
}
