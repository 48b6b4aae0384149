package org.ingestquarantine.operator;

import java.util.List;

/**
 * The open records of one cohort, oldest first, and how many the limit left out.
 *
 * @param errorFingerprint the cohort's fingerprint
 * @param parserVersion its parser version, or null for every version
 * @param errorClass its class code, or null for every class
 * @param source only records of this source, or null for every source
 * @param total open records in the cohort (of that source)
 * @param cut records left out by the limit
 * @param records the records shown, oldest first seen first
 * @param drainCommand the {@code drain} that selects exactly this cohort: every filter of it
 *     ({@code --fingerprint}, and {@code --parser-version}, {@code --class} and {@code --source} where it has them),
 *     with {@code --limit N --rate R} left for the operator to choose
 */
public record CohortRecords(String errorFingerprint, String parserVersion, String errorClass, String source, long total,
                            long cut, List<CohortRecord> records, String drainCommand) {

    /** @return the records of a cohort, its drain command made from the same filters */
    static CohortRecords of(String errorFingerprint, String parserVersion, String errorClass, String source, long total,
                            long cut, List<CohortRecord> records) {
        return new CohortRecords(errorFingerprint, parserVersion, errorClass, source, total, cut, records,
                drainCommand(errorFingerprint, parserVersion, errorClass, source));
    }

    /** @return {@code bin/ingest-quarantine drain} with the cohort's filters, each value shell-quoted if needed */
    static String drainCommand(String fingerprint, String parserVersion, String errorClass, String source) {
        StringBuilder b = new StringBuilder("bin/ingest-quarantine drain --fingerprint ").append(shell(fingerprint));
        if (parserVersion != null) {
            b.append(" --parser-version ").append(shell(parserVersion));
        }
        if (errorClass != null) {
            b.append(" --class ").append(shell(errorClass));
        }
        if (source != null) {
            b.append(" --source ").append(shell(source));
        }
        return b.append(" --limit N --rate R").toString();
    }

    private static String shell(String value) {
        return value.matches("[A-Za-z0-9._+@:/=-]+") ? value : "'" + value.replace("'", "'\\''") + "'";
    }
}
