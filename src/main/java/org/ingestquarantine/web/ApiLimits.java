package org.ingestquarantine.web;

import java.time.Duration;
import org.ingestquarantine.pipeline.Settings;

/**
 * The operator server's bounds, each read from its {@code operator.api-*} property (application.properties):
 * shortest token accepted, deadlines for a request's header and body, open connections, largest request header
 * and body,
 * threads answering requests.
 *
 * @param minTokenChars fewest characters {@code operator.api-token} may have
 * @param headerDeadline from a connection's opening (or its last answer) to the end of a request's header
 * @param bodyDeadline from the end of a request's header to the end of its body
 * @param maxConnections connections open at once; one more is closed at once
 * @param maxHeaderBytes largest request header, and request line; a larger one is answered 431 (414)
 * @param maxRequestBytes largest request body; a larger one is answered 413
 * @param handlerThreads requests answered at once (each may wait for the database)
 */
public record ApiLimits(int minTokenChars, Duration headerDeadline, Duration bodyDeadline, int maxConnections,
                        int maxHeaderBytes, int maxRequestBytes, int handlerThreads) {

    /** @throws IllegalArgumentException if a bound is not positive */
    public ApiLimits {
        if (minTokenChars < 1 || headerDeadline.isZero() || headerDeadline.isNegative() || bodyDeadline.isZero()
                || bodyDeadline.isNegative() || maxConnections < 1 || maxHeaderBytes < 1 || maxRequestBytes < 1 || handlerThreads < 1) {
            throw new IllegalArgumentException("every operator.api-* bound must be positive");
        }
    }

    /**
     * @param settings the application's properties
     * @return the bounds they set
     * @throws IllegalStateException if one is missing or not a number
     */
    public static ApiLimits from(Settings settings) {
        return new ApiLimits((int) settings.requiredNumber("operator.api-token-min-chars"),
                Duration.ofMillis(settings.requiredNumber("operator.api-header-deadline-ms")),
                Duration.ofMillis(settings.requiredNumber("operator.api-body-deadline-ms")),
                (int) settings.requiredNumber("operator.api-max-connections"),
                (int) settings.requiredNumber("operator.api-max-header-bytes"),
                (int) settings.requiredNumber("operator.api-max-request-bytes"),
                (int) settings.requiredNumber("operator.api-handler-threads"));
    }
}
