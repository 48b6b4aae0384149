package org.ingestquarantine.operator;

import java.util.List;
import org.ingestquarantine.quarantine.QuarantineAttempt;

/**
 * Answer to {@code show}: one record, its attempt history and whether its objects are still stored.
 *
 * @param record the evidence record
 * @param attempts its attempts, oldest first
 * @param payloadStored whether the payload object exists (false: never fetched, expired or erased)
 * @param stackTraceStored whether the stack trace object exists
 * @param payloadNote why this process cannot tell whether the payload exists (it lives in a store this process is
 *     not configured for, naming the setting; or the store does not answer), null when it can
 * @param stackTraceNote the same for the stack trace
 */
public record RecordDetail(RecordView record, List<QuarantineAttempt> attempts, boolean payloadStored,
                           boolean stackTraceStored, String payloadNote, String stackTraceNote) {
}
