package org.ingestquarantine.operator;

import java.time.Instant;
import java.util.Map;

/**
 * One recorded drain run ({@code drain_runs}).
 *
 * @param runId the run's ULID
 * @param startedBy who ran it
 * @param startedAt when it started
 * @param finishedAt when it ended, or null while running (or if the process died)
 * @param status {@code running}, {@code finished} or {@code interrupted}
 * @param errorFingerprint the cohort's fingerprint
 * @param parserVersion the cohort's parser version, or null for every version
 * @param errorClass the cohort's class, or null for every class
 * @param cohortDocuments open records in the cohort when the run started
 * @param selected records in the run's fixed selection
 * @param ratePerS ceiling of source requests per second
 * @param sourceRequests source requests made (HEAD and GET)
 * @param outcomeCounts outcome (e.g. {@code repaired_parser_fixed}, {@code still_failing:<fp>}) to documents
 */
public record DrainRunRow(String runId, String startedBy, Instant startedAt, Instant finishedAt, String status,
                          String errorFingerprint, String parserVersion, String errorClass, long cohortDocuments,
                          long selected, double ratePerS, long sourceRequests, Map<String, Long> outcomeCounts) {
}
