package org.ingestquarantine.operator;

import java.time.Instant;

/**
 * Overdue open records of one owner that share a source, class and fingerprint.
 *
 * @param source connector name
 * @param errorClass error class code
 * @param errorFingerprint fingerprint, or null
 * @param documents records
 * @param oldestFirstSeen earliest first_seen_at among them
 */
public record OverdueCohort(String source, String errorClass, String errorFingerprint, long documents,
                            Instant oldestFirstSeen) {
}
