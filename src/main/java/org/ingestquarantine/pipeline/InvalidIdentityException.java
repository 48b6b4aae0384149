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

    /**
     * @param field the wire field, {@code source} or {@code doc_id}
     * @param value the offending value, in full
     * @param problem what is wrong with it, e.g. "contains a control character"
     */
    InvalidIdentityException(String field, String value, String problem) {
        super("invalid_message", "field " + field + " " + problem + ": \"" + LogSafe.identity(value) + "\"");
        this.field = field;
        this.truncatedValue = LogSafe.identity(value);
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
