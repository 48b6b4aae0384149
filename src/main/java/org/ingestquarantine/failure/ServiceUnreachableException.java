package org.ingestquarantine.failure;

import java.time.Duration;

/**
 * A {@link TransientException} from a service the pipeline needs that cannot be reached: it refuses or times out
 * connections, or its 5xx/429 answers have persisted. Not a failure of the document: the consumer is held until
 * the service answers (delivery/ConsumerCircuitBreaker, probing it through the probe registered under
 * {@link #setting()}), and the delivery is released, never quarantined for it, as for a database outage.
 */
public class ServiceUnreachableException extends TransientException {

    private final String setting;
    private final String service;

    /**
     * @param setting the property naming the service, e.g. {@code embed.openai.url}; the breaker's probe is found by it
     * @param service the service as a log line may name it, e.g. {@code the embedding service at <url> (embed.openai.url)}
     * @param reasonCode lower-case reason, e.g. {@code embed_connection_refused}
     * @param message what failed and what happens next; never document text
     * @param cause the underlying exception, may be {@code null}
     * @param retryAfter the least wait the service asked for, may be {@code null}
     */
    public ServiceUnreachableException(String setting, String service, String reasonCode, String message,
                                       Throwable cause, Duration retryAfter) {
        super(reasonCode, message, cause, retryAfter);
        this.setting = setting;
        this.service = service;
    }

    /** @return the property naming the service */
    public String setting() {
        return setting;
    }

    /** @return the service as a log line may name it (no secret, no document text) */
    public String service() {
        return service;
    }

    /**
     * @param failure a failure, may be {@code null}
     * @return the first {@link ServiceUnreachableException} in its cause chain, or {@code null}
     */
    public static ServiceUnreachableException in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof ServiceUnreachableException s) {
                return s;
            }
        }
        return null;
    }
}
