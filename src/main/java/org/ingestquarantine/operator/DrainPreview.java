package org.ingestquarantine.operator;

/**
 * What a canary drain would select now and how long it would take (its dry run), and the confirmation its action
 * must bring back.
 *
 * @param selection exactly which records (the oldest {@code limit} open records of the cohort)
 * @param plan the selection per source, its record ids and the forecast at the canary's rate
 * @param ratePerS the canary's source requests per second ({@value CanaryPolicy#RATE_PROPERTY})
 * @param maxLimit the largest limit a canary may have ({@value CanaryPolicy#MAX_RECORDS_PROPERTY})
 * @param confirmation the token binding the selection and the cohort's count ({@link OperatorActions})
 */
public record DrainPreview(CohortSelection selection, DrainPlan plan, double ratePerS, int maxLimit,
                           String confirmation) {
}
