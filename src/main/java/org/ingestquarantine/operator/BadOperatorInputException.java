package org.ingestquarantine.operator;

/**
 * An operator named something that does not exist or asked for something impossible (unknown dlq_id,
 * unknown fingerprint, a rate of 0). Nothing was changed. The message is one line saying what to do.
 */
public final class BadOperatorInputException extends IllegalArgumentException {

    private final OperatorField field;
    private final String rest;

    /** @param message what was wrong and what to do instead; no document text */
    public BadOperatorInputException(String message) {
        super(message);
        this.field = null;
        this.rest = message;
    }

    /**
     * A refusal of one given value, worded for the command line ({@link #getMessage()}: {@code --reason is
     * required}) and for the HTTP API ({@link #forApi()}: {@code reason is required}).
     *
     * @param field the value refused
     * @param rest what is wrong with it, following its name (e.g. {@code " is required"}); no document text
     */
    public BadOperatorInputException(OperatorField field, String rest) {
        super(field.option() + rest);
        this.field = field;
        this.rest = rest;
    }

    /** @return the message in the HTTP API's words: a refused value named by its JSON field or query parameter */
    public String forApi() {
        return field == null ? getMessage() : field.apiName() + rest;
    }
}
