package org.ingestquarantine.web;

import java.util.function.UnaryOperator;

/**
 * One request as the operator server received it, whole: its header read within its deadline, its body too.
 *
 * @param method e.g. {@code GET}
 * @param rawPath the path, still URL-encoded, e.g. {@code /api/records/contracts%2Fa.pdf}
 * @param rawQuery the query, still URL-encoded, or null
 * @param header a header's first value by name (any case), or null
 * @param body the body, empty when there is none
 */
record HttpAsk(String method, String rawPath, String rawQuery, UnaryOperator<String> header, byte[] body) {
}
