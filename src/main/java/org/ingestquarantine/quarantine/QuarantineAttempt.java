package org.ingestquarantine.quarantine;

import java.time.Instant;
import org.ingestquarantine.failure.ErrorClass;

/**
 * One recorded failure of a quarantined document: a row of {@code quarantine_attempt}, appended by
 * {@link QuarantineStore#record(FailureEvidence)} and never rewritten.
 *
 * @param dlqId the quarantine record it belongs to
 * @param attemptNo 1 for the first failure, then 2, 3, ... (equals the record's attempts when it was written)
 * @param seenAt when it was recorded
 * @param errorClass class of this failure
 * @param errorType root exception type, or null
 * @param errorFingerprint fingerprint of this failure, or null
 * @param reasonCode reason of this failure, or null
 * @param stage stage that failed, or null
 * @param sourceUri the URI this attempt fetched (or was to fetch) once its source's trust check admitted it, or null
 * @param sourceVersion source version seen by this attempt, or null
 * @param payloadSha256 SHA-256 of the bytes this attempt fetched, or null
 * @param parserVersion parser version of this attempt, or null
 * @param deliveryCount broker delivery count of this attempt, 0 if unknown
 * @param deliveryKey broker message identity, or null
 */
public record QuarantineAttempt(String dlqId, int attemptNo, Instant seenAt, ErrorClass errorClass,
                                String errorType, String errorFingerprint, String reasonCode, String stage,
                                String sourceUri, String sourceVersion, String payloadSha256, String parserVersion,
                                int deliveryCount, String deliveryKey) {
}
