package org.ingestquarantine.quarantine;

import java.time.Instant;
import org.ingestquarantine.failure.ErrorClass;

/**
 * Open records failing the same way with the same parser: the unit a drain replays.
 *
 * @param parserVersion parser version of the records, or null if unknown
 * @param errorClass their latest error class
 * @param errorFingerprint their latest fingerprint, or null if unknown
 * @param documents open records in the cohort
 * @param since earliest first_seen_at in the cohort
 * @param lastSeen latest last_seen_at in the cohort
 */
public record Cohort(String parserVersion, ErrorClass errorClass, String errorFingerprint, long documents,
                     Instant since, Instant lastSeen) {
}
