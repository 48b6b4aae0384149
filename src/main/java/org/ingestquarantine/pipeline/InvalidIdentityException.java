package org.ingestquarantine.pipeline;

import org.ingestquarantine.failure.PermanentInputException;

/**
 * A message whose {@code source} or {@code doc_id} breaks the message schema's rules for identities (too
 * long, or holding control characters). Reason {@code invalid_message}, like any unreadable message; it
 * carries the offending identity only in its {@link LogSafe} form (escaped, truncated), never in full.
 */
public final class InvalidIdentityException extends PermanentInputException {

    private final String field;
    private final String truncatedValue;
    private final String messageSource;
    private final String docIdDigest;

    /**
     * @param field the wire field, {@code source} or {@code doc_id}
     * @param value the offending value, in full
     * @param problem what is wrong with it, e.g. "contains a control character"
     */
    InvalidIdentityException(String field, String value, String problem) {
        this("field " + field + " " + problem + ": \"" + LogSafe.identity(value) + "\"", field,
                LogSafe.identity(value), null, null);
    }

    private InvalidIdentityException(String message, String field, String truncatedValue, String messageSource,
                                     String docIdDigest) {
        super("invalid_message", message);
        this.field = field;
        this.truncatedValue = truncatedValue;
        this.messageSource = messageSource;
        this.docIdDigest = docIdDigest;
    }

    /**
     * @param source the message's {@code source}, which passed its own rules
     * @param docId the offending doc_id in full, as the message carried it; only its digest is kept
     * @return this failure of the doc_id, naming the message's valid source and the doc_id's digest
     */
    InvalidIdentityException withMessageSource(String source, String docId) {
        InvalidIdentityException e = new InvalidIdentityException(getMessage(), field, truncatedValue, source,
                RecordKey.docIdDigest(docId));
        e.setStackTrace(getStackTrace());
        return e;
    }

    /**
     * @return the message's {@code source} when it passed the schema's rules and only the doc_id broke them
     *     (whether it is a configured source is not known here), else {@code null}
     */
    public String messageSource() {
        return messageSource;
    }

    /**
     * @return {@link RecordKey#docIdDigest} of the offending doc_id when {@link #messageSource} is set, else
     *     {@code null}
     */
    public String docIdDigest() {
        return docIdDigest;
    }

    /** @return the wire field that broke the rules, {@code source} or {@code doc_id} */
    public String field() {
        return field;
    }

    /** @return the offending value, escaped and truncated ({@link LogSafe#identity}) */
    public String truncatedValue() {
        return truncatedValue;
    }
}
