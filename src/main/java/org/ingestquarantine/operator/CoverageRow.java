package org.ingestquarantine.operator;

import java.time.Duration;
import java.time.Instant;
import org.ingestquarantine.metrics.CoverageRatio;
import org.ingestquarantine.quarantine.SourceCoverage;

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
 * @param documents the denominator coverage divides by: the total (less the skipped documents where they are
 *     excluded), or every document seen where more were seen; null without a total
 * @param coverage the ratio in [0, 1]; null when the total is unknown (then only the oldest open age is
 *     reported) or the denominator is 0
 * @param oldestOpenAt first_seen_at of the oldest open record, or null if none is open
 * @param oldestOpenAge how long that record has been open, or null
 * @param coveragePercent the coverage as {@code coverage} and the page print it ({@link
 *     org.ingestquarantine.metrics.CoverageRatio#percent}), or null without a coverage
 */
public record CoverageRow(String source, Long total, String totalBy, Instant totalCountedAt, Duration totalAge,
                          long indexed, long openQuarantined, long unindexable, long erased, long skipped, long unseen,
                          Long documents, Double coverage, Instant oldestOpenAt, Duration oldestOpenAge,
                          String coveragePercent) {

    /**
     * @param c one source's reading of the coverage query
     * @param now the time its ages are measured to
     * @return it as a row, with ages and the printed percentage
     */
    static CoverageRow of(SourceCoverage c, Instant now) {
        return new CoverageRow(c.source(), c.total(), c.totalBy(), c.totalCountedAt(),
                c.totalCountedAt() == null ? null : Duration.between(c.totalCountedAt(), now), c.indexed(),
                c.openQuarantined(), c.unindexable(), c.erased(), c.skipped(), c.unseen(), c.documents(), c.coverage(),
                c.oldestOpenAt(), c.oldestOpenAt() == null ? null : Duration.between(c.oldestOpenAt(), now),
                percent(c.coverage()));
    }

    /** @return the ratio as {@link CoverageRatio#percent} prints it, or null */
    static String percent(Double coverage) {
        return coverage == null ? null : CoverageRatio.percent(coverage);
    }
}
