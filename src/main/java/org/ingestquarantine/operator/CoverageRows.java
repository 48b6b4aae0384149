package org.ingestquarantine.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.ingestquarantine.metrics.CoverageRatio;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * Bounds the coverage rows by configuration: a source has a row of its own when an operator named it (configured,
 * a total stated, listed or counted, a root recorded by {@code ingest}) or it is
 * {@value RecordKey#INVALID_MESSAGES_SOURCE}; the rows of every other source the data names (an older version
 * recorded some under names producers chose; {@code sources purge-unconfigured} re-keys them) are summed into one
 * {@value RecordKey#OTHER_SOURCES} row, so a page or an API answer has at most that many rows plus two.
 */
final class CoverageRows {

    private CoverageRows() {
    }

    /**
     * @param rows coverage per source, sorted by source
     * @param named the sources an operator named: configured, or with a recorded root
     * @return the rows of named sources (and of any source with a known total), then one
     *     {@value RecordKey#OTHER_SOURCES} row summing the others, if any
     */
    static List<CoverageRow> bounded(List<CoverageRow> rows, Set<String> named) {
        List<CoverageRow> kept = new ArrayList<>();
        CoverageRow other = null;
        for (CoverageRow r : rows) {
            if (r.totalBy() != null || ownRow(r.source(), named)) {
                kept.add(r);
            } else {
                other = other == null ? rename(r) : plus(other, r);
            }
        }
        if (other != null) {
            kept.add(other);
        }
        return List.copyOf(kept);
    }

    /**
     * @param source a source the data names
     * @param named the sources an operator named
     * @return whether it has a row of its own: named, or {@value RecordKey#INVALID_MESSAGES_SOURCE}
     */
    static boolean ownRow(String source, Set<String> named) {
        return named.contains(source) || RecordKey.INVALID_MESSAGES_SOURCE.equals(source);
    }

    private static CoverageRow rename(CoverageRow r) {
        return plus(new CoverageRow(RecordKey.OTHER_SOURCES, null, null, null, null, 0, 0, 0, 0, 0, null, null, null), r);
    }

    /** Rows without a known total (the others are kept): counts summed, the oldest open record the older one. */
    private static CoverageRow plus(CoverageRow a, CoverageRow b) {
        long indexed = a.indexed() + b.indexed();
        long open = a.openQuarantined() + b.openQuarantined();
        long unindexable = a.unindexable() + b.unindexable();
        long erased = a.erased() + b.erased();
        boolean bOlder = b.oldestOpenAt() != null && (a.oldestOpenAt() == null || b.oldestOpenAt().isBefore(a.oldestOpenAt()));
        Instant oldest = bOlder ? b.oldestOpenAt() : a.oldestOpenAt();
        Duration age = bOlder ? b.oldestOpenAge() : a.oldestOpenAge();
        long notSearchable = open + unindexable + erased;
        return new CoverageRow(RecordKey.OTHER_SOURCES, null, null, null, null, indexed, open, unindexable, erased,
                CoverageRatio.unseen(null, indexed, notSearchable), CoverageRatio.of(null, indexed, notSearchable),
                oldest, age);
    }
}
