package org.ingestquarantine.failure;

/**
 * A failure that waiting can help: a source, provider or store answered "try later" (HTTP 429/5xx,
 * a timeout). Classified {@link ErrorClass#TRANSIENT}.
 */
public class TransientException extends RuntimeException implements Reasoned {

    private final String reasonCode;

    /**
     * @param reasonCode lower-case reason, e.g. {@code http_503}
     * @param message what failed and what happens next; never document text
     * @param cause the underlying exception, may be {@code null}
     */
    public TransientException(String reasonCode, String message, Throwable cause) {
        super(message, cause);
        this.reasonCode = reasonCode;
    }

    @Override
    public String reasonCode() {
        return reasonCode;
    }
}
