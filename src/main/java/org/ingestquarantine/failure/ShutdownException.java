package org.ingestquarantine.failure;

/**
 * Work cut short because this process is stopping (SIGTERM, Ctrl-C): nothing is known to be wrong with the
 * document or its source. Classified {@link ErrorClass#TRANSIENT} with reason {@value #REASON}; a delivery
 * that fails with it is released at once and never quarantined for it (the delivery's disposition asks).
 */
public class ShutdownException extends TransientException {

    /** The reason code. */
    public static final String REASON = "shutdown";

    /**
     * @param message what was cut short; never document text
     * @param cause the underlying exception, may be {@code null}
     */
    public ShutdownException(String message, Throwable cause) {
        super(REASON, message, cause);
    }
}
