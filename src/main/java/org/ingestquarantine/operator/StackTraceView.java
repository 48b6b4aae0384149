package org.ingestquarantine.operator;

/**
 * A record's stack trace as the operator sees it ({@code show --stack-trace}, {@code GET /api/records/<ref>/stack-trace},
 * the page's record view): its types and frames, messages left out ({@link RedactedStackTrace}).
 *
 * @param dlqId the record's ULID
 * @param stackTraceUri where the trace is stored, or null when the record names none
 * @param stored whether it was read
 * @param why when it was not: none recorded, erased, no longer in the store, or not readable from this process (the
 *     store's own line, naming its setting); null when it was read
 * @param stackTrace the trace, types and frames only ({@link RedactedStackTrace#of}); null when not read
 */
public record StackTraceView(String dlqId, String stackTraceUri, boolean stored, String why, String stackTrace) {
}
