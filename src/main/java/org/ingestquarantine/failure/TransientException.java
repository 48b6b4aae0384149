package org.ingestquarantine.failure;

import java.time.Duration;
import java.util.Optional;

/**
 * A failure that waiting can help: a source, provider or store answered "try later" (HTTP 429/5xx,
 * a timeout). Classified {@link ErrorClass#TRANSIENT}. One that knows how long to wait (an HTTP
 * {@code Retry-After}) carries it: the release then waits at least that long, within the transient class's
 * {@code failure.transient.backoff-max-ms}.
 */
public class TransientException extends RuntimeException implements Reasoned {

    private final String reasonCode;
    private final Duration retryAfter;

    /**
     * @param reasonCode lower-case reason, e.g. {@code http_503}
     * @param message what failed and what happens next; never document text
     * @param cause the underlying exception, may be {@code null}
     */
    public TransientException(String reasonCode, String message, Throwable cause) {
        this(reasonCode, message, cause, null);
    }

    /**
     * @param reasonCode lower-case reason, e.g. {@code http_429}
     * @param message what failed and what happens next; never document text
     * @param cause the underlying exception, may be {@code null}
     * @param retryAfter the least wait the other side asked for (HTTP {@code Retry-After}), may be {@code null}
     */
    public TransientException(String reasonCode, String message, Throwable cause, Duration retryAfter) {
        super(message, cause);
        this.reasonCode = reasonCode;
        this.retryAfter = retryAfter;
    }

    @Override
    public String reasonCode() {
        return reasonCode;
    }

    /** @return the least wait the other side asked for before the next try, if it named one */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
