package org.ingestquarantine.web;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One answer of the operator server. The security headers every answer carries ({@link SecurityHeaders}) are
 * added by the server, not here.
 *
 * @param status the HTTP status
 * @param contentType its {@code Content-Type}
 * @param body its body (left out of an answer to {@code HEAD}, its length kept)
 * @param headers more headers, e.g. {@code WWW-Authenticate}
 */
record HttpAnswer(int status, String contentType, byte[] body, Map<String, String> headers) {

    /**
     * @param status the HTTP status
     * @param line one line saying what went wrong
     * @return a plain-text answer of that line
     */
    static HttpAnswer text(int status, String line) {
        return new HttpAnswer(status, "text/plain; charset=utf-8", (line + "\n").getBytes(StandardCharsets.UTF_8),
                Map.of());
    }
}
