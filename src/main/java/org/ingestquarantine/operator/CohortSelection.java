package org.ingestquarantine.operator;

import org.ingestquarantine.failure.ErrorClass;

/**
 * The records an operator's bulk action takes, as its trail entry records them: the OPEN records of one
 * fingerprint, narrowed by each filter given, and for a drain at most {@code limit} of them (the oldest first
 * seen). A blank filter is no filter.
 *
 * @param fingerprint the cohort's error fingerprint; required
 * @param parserVersion only records of this parser version, or null
 * @param errorClass only records of this error class code, or null
 * @param source only records of this source, or null
 * @param limit a drain's most records, or null (a dispose takes every one)
 */
public record CohortSelection(String fingerprint, String parserVersion, String errorClass, String source,
                              Integer limit) {

    /** Trims each value; a blank filter becomes null. */
    public CohortSelection {
        fingerprint = fingerprint == null ? null : fingerprint.trim();
        parserVersion = filter(parserVersion);
        errorClass = filter(errorClass);
        source = filter(source);
    }

    /** @return the selection of a drain request */
    public static CohortSelection of(Drain.Request r) {
        return new CohortSelection(r.fingerprint(), r.parserVersion(), r.errorClass(), r.source(), r.limit());
    }

    /**
     * @throws BadOperatorInputException if the fingerprint is missing, the class unknown or the limit below 1;
     *     nothing was read or written
     */
    public void check() {
        if (fingerprint == null || fingerprint.isEmpty()) {
            throw new BadOperatorInputException(OperatorField.FINGERPRINT, " is required and must not be blank");
        }
        if (errorClass != null) {
            try {
                ErrorClass.fromCode(errorClass);
            } catch (IllegalArgumentException e) {
                throw new BadOperatorInputException("unknown error class '" + RecordRef.bounded(errorClass) + "'");
            }
        }
        if (limit != null && limit < 1) {
            throw new BadOperatorInputException(OperatorField.LIMIT, " must be at least 1, was " + limit);
        }
    }

    /**
     * @param ratePerSecond most source requests per second
     * @param startedBy who runs it ({@code drain_runs.started_by})
     * @return the drain of this selection
     * @throws NullPointerException if no limit is set
     */
    public Drain.Request drain(double ratePerSecond, String startedBy) {
        return new Drain.Request(fingerprint, parserVersion, errorClass, limit, ratePerSecond, startedBy, source);
    }

    /** @return the refusal of this selection when no open record matches it */
    BadOperatorInputException matchesNothing() {
        return new BadOperatorInputException("no open record has fingerprint " + RecordRef.bounded(fingerprint)
                + (parserVersion == null ? "" : " with parser version " + RecordRef.bounded(parserVersion))
                + (errorClass == null ? "" : " and class " + errorClass)
                + (source == null ? "" : " from source " + RecordRef.bounded(source))
                + "; list cohorts with 'cohorts'");
    }

    private static String filter(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }
}
