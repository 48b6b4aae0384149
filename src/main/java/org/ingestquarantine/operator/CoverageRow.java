package org.ingestquarantine.operator;

import java.time.Duration;
import java.time.Instant;

/**
 * Coverage of one source: {@code indexed / (indexed + openQuarantined + unindexable + erased)}. An erased record
 * stays in the denominator as an unindexable one does: closing a record, whichever way but by indexing its
 * document, never raises coverage.
 *
 * @param source connector name
 * @param total documents the source holds as its connector last counted them, or null when unknown
 * @param indexed searchable documents
 * @param openQuarantined open records whose document is not searchable
 * @param unindexable records closed as unindexable whose document is not searchable (they stay in the
 *     denominator, so disposing a cohort does not change coverage)
 * @param erased records erased (tombstones) whose document is not searchable (they stay in the denominator, so
 *     erasing a quarantined document does not raise coverage)
 * @param coverage the ratio in [0, 1]; null when the total is unknown (then only the oldest open age is
 *     reported) or the denominator is 0
 * @param oldestOpenAt first_seen_at of the oldest open record, or null if none is open
 * @param oldestOpenAge how long that record has been open, or null
 */
public record CoverageRow(String source, Long total, long indexed, long openQuarantined, long unindexable, long erased,
                          Double coverage, Instant oldestOpenAt, Duration oldestOpenAge) {
}
