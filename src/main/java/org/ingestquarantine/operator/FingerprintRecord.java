package org.ingestquarantine.operator;

import java.time.Instant;

/**
 * One record of a fingerprint, whatever its disposition, as {@code records} lists it (the whole evidence is
 * {@code show}'s).
 *
 * @param dlqId the record's ULID
 * @param source connector name
 * @param docId document id within the source
 * @param errorClass the latest failure's class code
 * @param reasonCode its reason code, or null
 * @param attempts failures recorded
 * @param firstSeenAt first failure
 * @param lastSeenAt latest failure
 * @param disposition open, or how it was closed
 * @param owner the team the record names, or null
 */
public record FingerprintRecord(String dlqId, String source, String docId, String errorClass, String reasonCode,
                                int attempts, Instant firstSeenAt, Instant lastSeenAt, String disposition,
                                String owner) {
}
