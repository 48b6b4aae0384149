package org.ingestquarantine.operator;

/**
 * An operator named something that does not exist or asked for something impossible (unknown dlq_id,
 * unknown fingerprint, a rate of 0). Nothing was changed. The message is one line saying what to do.
 */
public final class BadOperatorInputException extends IllegalArgumentException {

    /** @param message what was wrong and what to do instead; no document text */
    public BadOperatorInputException(String message) {
        super(message);
    }
}
