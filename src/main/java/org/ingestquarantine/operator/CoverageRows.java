package org.ingestquarantine.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.metrics.SkippedCoverage;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * Sums the coverage rows of the sources that share one row ({@link SourceRows}) into one
 * {@value RecordKey#OTHER_SOURCES} row, last; their totals are unknown (a source with a total is named), so its
 * coverage is too.
 */
final class CoverageRows {

    private CoverageRows() {
    }

    /**
     * @param rows coverage per source, sorted by source
     * @param rowOf source → the name of its row ({@link SourceRows#over})
     * @return the rows of sources with rows of their own, then one {@value RecordKey#OTHER_SOURCES} row summing
     *     the others, if any
     */
    static List<CoverageRow> bounded(List<CoverageRow> rows, java.util.function.UnaryOperator<String> rowOf,
                                     SkippedCoverage skippedCoverage) {
        List<CoverageRow> kept = new ArrayList<>();
        CoverageRow other = null;
        for (CoverageRow r : rows) {
            if (!RecordKey.OTHER_SOURCES.equals(rowOf.apply(r.source()))) {
                kept.add(r);
            } else {
                other = other == null ? rename(r, skippedCoverage) : plus(other, r, skippedCoverage);
            }
        }
        if (other != null) {
            kept.add(other);
        }
        return List.copyOf(kept);
    }

    private static CoverageRow rename(CoverageRow r, SkippedCoverage skippedCoverage) {
        return plus(new CoverageRow(RecordKey.OTHER_SOURCES, null, null, null, null, 0, 0, 0, 0, 0, 0, null, null, null, null, null), r,
                skippedCoverage);
    }

    /** Rows without a known total (the others are kept): counts summed, the oldest open record the older one. */
    private static CoverageRow plus(CoverageRow a, CoverageRow b, SkippedCoverage skippedCoverage) {
        long indexed = a.indexed() + b.indexed();
        long open = a.openQuarantined() + b.openQuarantined();
        long unindexable = a.unindexable() + b.unindexable();
        long erased = a.erased() + b.erased();
        long skipped = a.skipped() + b.skipped();
        boolean bOlder = b.oldestOpenAt() != null && (a.oldestOpenAt() == null || b.oldestOpenAt().isBefore(a.oldestOpenAt()));
        Instant oldest = bOlder ? b.oldestOpenAt() : a.oldestOpenAt();
        Duration age = bOlder ? b.oldestOpenAge() : a.oldestOpenAge();
        long notSearchable = open + unindexable + erased;
        return new CoverageRow(RecordKey.OTHER_SOURCES, null, null, null, null, indexed, open, unindexable, erased,
                skipped, skippedCoverage.unseen(null, indexed, notSearchable, skipped),
                skippedCoverage.documents(null, indexed, notSearchable, skipped),
                skippedCoverage.ratio(null, indexed, notSearchable, skipped), oldest, age,
                CoverageRow.percent(skippedCoverage.ratio(null, indexed, notSearchable, skipped)));
    }
}
