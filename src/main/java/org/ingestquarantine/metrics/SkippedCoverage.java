package org.ingestquarantine.metrics;

import java.util.Locale;

/**
 * How a source's coverage ({@link CoverageRatio}) counts its documents a route skipped by policy (table
 * {@code skipped_documents}, not searchable and without a quarantine record that already counts them): property
 * {@value #PROPERTY}, set in application.properties. Every coverage figure ({@code coverage}, the API, the page,
 * {@link StoreGauges#COVERAGE}, the {@code ingest} summary) applies the same one.
 */
public enum SkippedCoverage {
    /** Left out of the denominator: a document the operator chose to leave out is not one the source is missing. */
    EXCLUDED,
    /** Counted as not searchable, as an open quarantine record is. */
    MISSING;

    /** The property that chooses. */
    public static final String PROPERTY = "coverage.skipped-documents";

    /**
     * @param value {@code excluded} or {@code missing}, any case
     * @return the choice
     * @throws IllegalArgumentException naming the property when the value is neither
     */
    public static SkippedCoverage of(String value) {
        try {
            return valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException(PROPERTY + " is 'excluded' or 'missing', was '" + value + "'", e);
        }
    }

    /**
     * @param total the source's known total, or null
     * @param skipped documents skipped by policy (not searchable, no quarantine record counting them)
     * @return the total coverage divides by before {@link CoverageRatio#of}: without the skipped ones if excluded
     */
    public Long total(Long total, long skipped) {
        return total == null || this == MISSING ? total : Long.valueOf(Math.max(0, total - skipped));
    }

    /**
     * @param notSearchable records whose document is not searchable
     * @param skipped documents skipped by policy, as above
     * @return the not-searchable count {@link CoverageRatio#of} takes: with the skipped ones if missing
     */
    public long notSearchable(long notSearchable, long skipped) {
        return this == MISSING ? notSearchable + skipped : notSearchable;
    }

    /**
     * @param total the source's known total, or null
     * @param indexed searchable documents
     * @param notSearchable records whose document is not searchable
     * @param skipped documents skipped by policy
     * @return {@link CoverageRatio#of} with the skipped documents counted as chosen
     */
    public Double ratio(Long total, long indexed, long notSearchable, long skipped) {
        return CoverageRatio.of(total(total, skipped), indexed, notSearchable(notSearchable, skipped));
    }

    /**
     * @return the denominator of {@link #ratio}: {@link CoverageRatio#documents} with the skipped documents counted
     *     as chosen; null without a total
     */
    public Long documents(Long total, long indexed, long notSearchable, long skipped) {
        return CoverageRatio.documents(total(total, skipped), indexed, notSearchable(notSearchable, skipped));
    }

    /**
     * @return the formula of {@link #ratio} in words, as the page's hint and the {@code ingest} summary print it
     */
    public String formula() {
        return this == MISSING
                ? "indexed / documents: the source's total, or indexed + open quarantined + unindexable + erased"
                        + " + skipped by policy where more were seen"
                : "indexed / documents: the source's total less the documents skipped by policy, or indexed"
                        + " + open quarantined + unindexable + erased where more were seen";
    }

    /**
     * @return {@link CoverageRatio#unseen} with the skipped documents counted as chosen (a skipped document is seen
     *     either way)
     */
    public long unseen(Long total, long indexed, long notSearchable, long skipped) {
        return this == MISSING ? CoverageRatio.unseen(total, indexed, notSearchable + skipped)
                : CoverageRatio.unseen(total(total, skipped), indexed, notSearchable);
    }

    /**
     * The documents of each source skipped by policy that coverage counts: not searchable now, and without an open,
     * unindexable or erased quarantine record (which counts them already).
     *
     * @return SQL with the columns {@code source, skipped_n}
     */
    public static String skippedPerSourceSql() {
        return """
                SELECT k.source, count(*) AS skipped_n FROM skipped_documents k
                WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.source = k.source AND d.doc_id = k.doc_id
                                  AND d.state = 'searchable')
                  AND NOT EXISTS (SELECT 1 FROM quarantine q WHERE q.source = k.source AND q.doc_id = k.doc_id
                                  AND q.disposition IN ('open', 'unindexable', 'erased'))
                GROUP BY k.source
                """;
    }
}
