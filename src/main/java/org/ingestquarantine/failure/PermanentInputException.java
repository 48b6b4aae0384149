package org.ingestquarantine.failure;



/**
 * The input itself is unusable and waiting will not change that: an invalid message, a document over
 * the size limit, an empty file. Classified {@code permanent_input}: one attempt, no retry.
 */
public class PermanentInputException extends RuntimeException implements Reasoned {

    private final String reasonCode;

    /**
     * @param reasonCode lower-case reason, e.g. {@code too_large}
     * @param message what is wrong and what to do; never document text
     */
    public PermanentInputException(String reasonCode, String message) {
        super(message);
        this.reasonCode = reasonCode;
    }

    /**
     * @param message what is wrong with the message
     * @return a failure with reason {@code invalid_message}
     */
    public static PermanentInputException invalidMessage(String message) {
        return new PermanentInputException("invalid_message", message);
    }

    @Override
    public String reasonCode() {
        return reasonCode;
    }
}
