package org.ingestquarantine.quarantine;

import java.time.Instant;

/**
 * Coverage of one source as {@link QuarantineQueries#coverage} reads it, the one reading behind {@code coverage},
 * the API, the page, the {@code coverage_ratio} gauge and the {@code ingest} summary: {@code indexed / documents}
 * ({@link org.ingestquarantine.metrics.SkippedCoverage#ratio}).
 *
 * @param source connector name
 * @param total documents the source holds as last obtained ({@code source_totals}), or null when unknown
 * @param totalBy how the total was obtained: {@code listed}, {@code stated} or {@code ingest}; null without one
 * @param totalCountedAt when it was obtained, or null
 * @param indexed documents in state searchable
 * @param openQuarantined open quarantine records whose document is not searchable
 * @param unindexable records closed as unindexable whose document is not searchable (they stay in the denominator)
 * @param erased erased records (tombstones) whose document is not searchable (they stay in the denominator too)
 * @param skipped documents a route skipped by policy, not searchable and without such a record
 * @param unseen documents of the total no record or index row names yet
 * @param documents the denominator: the total (less the skipped ones where they are excluded), or every document
 *     seen where more were seen; null without a total
 * @param coverage {@code indexed / documents} in [0, 1], or null without a total or with 0 documents
 * @param oldestOpenAt first_seen_at of the oldest open record, or null if none is open
 */
public record SourceCoverage(String source, Long total, String totalBy, Instant totalCountedAt, long indexed,
                             long openQuarantined, long unindexable, long erased, long skipped, long unseen,
                             Long documents, Double coverage, Instant oldestOpenAt) {
}
