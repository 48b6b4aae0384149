package org.ingestquarantine.ingest;

import java.time.Duration;

/**
 * How long an HTTP fetch may take, each bound enforced while it happens. Properties (defaults in
 * {@code application.properties}): {@code http.connect-timeout-ms}, {@code http.idle-timeout-ms},
 * {@code http.body-deadline-ms}, {@code http.max-redirects}.
 *
 * @param connect most time to open the connection
 * @param idle most time without a byte: until the response headers arrive, and between body reads
 * @param bodyDeadline most time from sending a request to the last byte of its body, however the bytes drip
 * @param maxRedirects most redirects followed for one request (each one re-checked against the source)
 */
public record HttpTimeouts(Duration connect, Duration idle, Duration bodyDeadline, int maxRedirects) {

    public HttpTimeouts {
        if (connect.isNegative() || connect.isZero() || idle.isNegative() || idle.isZero()
                || bodyDeadline.isNegative() || bodyDeadline.isZero() || maxRedirects < 0) {
            throw new IllegalArgumentException("HTTP timeouts must be positive and max-redirects >= 0: " + connect + ", "
                    + idle + ", " + bodyDeadline + ", " + maxRedirects);
        }
    }
}
