package org.ingestquarantine.quarantine;

/**
 * A record's object lives in a payload store this process is not configured for (an S3 bucket while it has
 * {@code payload.store=local}, another bucket or prefix, a local folder other than its {@code payload.local.dir}).
 * The message is one line naming the store and the setting that would reach it.
 */
public class PayloadNotHereException extends IllegalArgumentException {

    /** @param message the object's URI, where it lives and the setting to change */
    public PayloadNotHereException(String message) {
        super(message);
    }
}
