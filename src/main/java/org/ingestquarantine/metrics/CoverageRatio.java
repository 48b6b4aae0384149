package org.ingestquarantine.metrics;

import java.util.Locale;

/**
 * The one definition of a source's coverage, which {@code coverage}, the API, the page, {@link StoreGauges#COVERAGE}
 * and the coverage alert share: indexed documents over the source's documents, where the source's documents are
 * its known total or, when more have been seen than it says (a stale listing), every document seen (indexed +
 * open quarantined + unindexable + erased, each not searchable). No total, no coverage. Printed to a tenth of a
 * percent, rounded down, so that a source below 99% never prints as 99.0% (the alert's summary prints the same).
 */
public final class CoverageRatio {

    private CoverageRatio() {
    }

    /**
     * @param total the source's known total, or null when it has none
     * @param indexed searchable documents
     * @param notSearchable records whose document is not searchable: open + unindexable + erased
     * @return indexed / max(total, indexed + notSearchable) in [0, 1]; null without a total or with 0 documents
     */
    public static Double of(Long total, long indexed, long notSearchable) {
        Long documents = documents(total, indexed, notSearchable);
        return documents == null || documents == 0 ? null : (double) indexed / documents;
    }

    /**
     * @param total the source's known total, or null when it has none
     * @param indexed searchable documents
     * @param notSearchable records whose document is not searchable: open + unindexable + erased
     * @return the denominator of {@link #of}: max(total, indexed + notSearchable); null without a total
     */
    public static Long documents(Long total, long indexed, long notSearchable) {
        return total == null ? null : Long.valueOf(Math.max(total, indexed + notSearchable));
    }

    /**
     * @param total the source's known total, or null
     * @param indexed searchable documents
     * @param notSearchable records whose document is not searchable
     * @return documents of the total no record or index row names yet (no message brought them), 0 or more
     */
    public static long unseen(Long total, long indexed, long notSearchable) {
        return total == null ? 0 : Math.max(0, total - indexed - notSearchable);
    }

    /**
     * @param ratio a coverage in [0, 1]
     * @return it as a percentage to a tenth, rounded down: {@code 53.9%} for 75/139, {@code 100.0%} only for 1
     */
    public static String percent(double ratio) {
        return String.format(Locale.ROOT, "%.1f%%", Math.floor(ratio * 1000) / 10);
    }
}
