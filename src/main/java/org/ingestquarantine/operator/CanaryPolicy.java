package org.ingestquarantine.operator;

import org.ingestquarantine.pipeline.Settings;

/**
 * How canary drains started from the HTTP API (and the page) run, each bound read from its property
 * (application.properties): the largest limit, and the run's rate. One runs at a time, within the request.
 *
 * @param maxRecords the most records a canary may select ({@value #MAX_RECORDS_PROPERTY}); more is refused
 * @param ratePerSecond its source requests per second ({@value #RATE_PROPERTY})
 */
public record CanaryPolicy(int maxRecords, double ratePerSecond) {

    /** The property of {@link #maxRecords}. */
    public static final String MAX_RECORDS_PROPERTY = "operator.api-drain-max-records";

    /** The property of {@link #ratePerSecond}. */
    public static final String RATE_PROPERTY = "operator.api-drain-rate-per-s";

    /** @throws IllegalArgumentException if a bound is not positive */
    public CanaryPolicy {
        if (maxRecords < 1 || !(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
            throw new IllegalArgumentException(MAX_RECORDS_PROPERTY + " and " + RATE_PROPERTY + " must be positive");
        }
    }

    /**
     * @param settings the application's properties
     * @return the bounds they set
     * @throws IllegalStateException if one is missing or not a number
     */
    public static CanaryPolicy from(Settings settings) {
        return new CanaryPolicy((int) settings.requiredNumber(MAX_RECORDS_PROPERTY),
                settings.requiredNumber(RATE_PROPERTY));
    }

    /**
     * @param selection a canary's selection
     * @throws BadOperatorInputException if it has no limit or one above {@link #maxRecords}
     */
    void check(CohortSelection selection) {
        if (selection.limit() == null) {
            throw new BadOperatorInputException(OperatorField.LIMIT, " is required: the canary's size, at most "
                    + maxRecords + " (" + MAX_RECORDS_PROPERTY + ")");
        }
        if (selection.limit() > maxRecords) {
            throw new BadOperatorInputException(OperatorField.LIMIT, " must be at most " + maxRecords + " ("
                    + MAX_RECORDS_PROPERTY + "), was " + selection.limit() + "; drain more with the drain command");
        }
    }
}
