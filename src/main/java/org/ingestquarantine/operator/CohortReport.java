package org.ingestquarantine.operator;

import java.util.List;

/**
 * Answer to {@code cohorts}: every cohort unless a limit was asked for, and then how many were cut.
 *
 * @param runningParserVersion the parser version of this build; cohorts of any other are marked stale
 * @param runningFingerprintVersion the fingerprint algorithm's version in this build
 *     ({@link org.ingestquarantine.failure.ErrorFingerprint#VERSION}); cohorts holding records of an older one are
 *     marked ({@link CohortRow#olderFingerprint()})
 * @param totalCohorts cohorts matching the filters
 * @param cut cohorts left out because of the limit (0 without one)
 * @param cohorts the cohorts shown, most documents first
 */
public record CohortReport(String runningParserVersion, int runningFingerprintVersion, int totalCohorts, int cut,
                           List<CohortRow> cohorts) {
}
