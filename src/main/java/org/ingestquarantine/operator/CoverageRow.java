package org.ingestquarantine.operator;

import java.time.Duration;
import java.time.Instant;

/**
 * Coverage of one source: indexed documents over the source's documents ({@link
 * org.ingestquarantine.metrics.CoverageRatio#of}: its known total, or every document seen when more were seen:
 * indexed + open quarantined + unindexable + erased). An erased record stays in the denominator as an
 * unindexable one does: closing a record, whichever way but by indexing its document, never raises coverage.
 *
 * @param source connector name
 * @param total documents the source holds as last obtained, or null when unknown
 * @param totalBy how the total was obtained: {@code listed}, {@code stated} or {@code ingest}; null without one
 * @param totalCountedAt when it was obtained, or null
 * @param totalAge how long ago, or null
 * @param indexed searchable documents
 * @param openQuarantined open records whose document is not searchable
 * @param unindexable records closed as unindexable whose document is not searchable (they stay in the
 *     denominator, so disposing a cohort does not change coverage)
 * @param erased records erased (tombstones) whose document is not searchable (they stay in the denominator, so
 *     erasing a quarantined document does not raise coverage)
 * @param skipped documents a route skipped by policy, not searchable and without such a record: in the denominator
 *     or not as {@code coverage.skipped-documents} says ({@link org.ingestquarantine.metrics.SkippedCoverage})
 * @param unseen documents of the total no record or index row names (no message has brought them yet)
 * @param coverage the ratio in [0, 1]; null when the total is unknown (then only the oldest open age is
 *     reported) or the denominator is 0
 * @param oldestOpenAt first_seen_at of the oldest open record, or null if none is open
 * @param oldestOpenAge how long that record has been open, or null
 */
public record CoverageRow(String source, Long total, String totalBy, Instant totalCountedAt, Duration totalAge,
                          long indexed, long openQuarantined, long unindexable, long erased, long skipped, long unseen,
                          Double coverage, Instant oldestOpenAt, Duration oldestOpenAge) {
}
