package org.ingestquarantine.quarantine;

import java.time.Instant;

/**
 * Coverage of one source: {@code indexed / (indexed + openQuarantined + unindexable + erased)}.
 *
 * @param source connector name
 * @param indexed documents in state searchable
 * @param openQuarantined open quarantine records whose document is not searchable
 * @param unindexable records closed as unindexable (they stay in the denominator)
 * @param erased erased records (tombstones) whose document is not searchable (they stay in the denominator too)
 * @param coverage the ratio in [0, 1], or null when the denominator is 0 (no known documents)
 * @param oldestOpenAt first_seen_at of the oldest open record, or null if none is open
 */
public record SourceCoverage(String source, long indexed, long openQuarantined, long unindexable, long erased, Double coverage,
                             Instant oldestOpenAt) {
}
