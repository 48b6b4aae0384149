package org.ingestquarantine.operator;

import java.time.Duration;
import java.util.Map;

/**
 * What one drain run did. The outcome counts sum to {@code selected}: {@code repaired_parser_fixed},
 * {@code repaired_content_changed}, {@code deleted_at_source}, {@code still_failing:<fingerprint>},
 * {@code already_closed} (closed by someone else since the start), {@code not_attempted:<reason>} (this
 * process's configuration does not let it ask the source: {@code unknown_source}, {@code source_folder_missing}
 * (the folder an ingest recorded as its root is gone), {@code uri_not_allowed},
 * {@code invalid_uri}, {@code no_source_uri} when no URI is known (the record keeps none, no base URI),
 * {@code unsupported_uri} when no connector here reads the URI's scheme; or it names no document:
 * {@code invalid_doc_id}, a message whose doc_id was invalid; the record was left exactly as it was) and {@code not_tried} (the run was interrupted first).
 *
 * @param runId the run's ULID in {@code drain_runs}
 * @param cohortDocuments open records in the cohort when the run started
 * @param selected records in this run's fixed selection ({@code min(limit, cohortDocuments)})
 * @param outcomes outcome → documents, sorted by outcome
 * @param sourceRequests HEAD and GET requests made to sources
 * @param elapsed wall-clock time of the run
 * @param interrupted whether the run was stopped before every selected record was tried
 * @param forecast what the whole cohort is expected to need, when this run was a canary (selected fewer
 *     than the cohort); null otherwise
 * @param notAttempted for each {@code not_attempted:<reason>} outcome, the first record's explanation (one line,
 *     log-safe); empty when every record was attempted
 * @param verdicts for the repaired records, {@code <disposition> by=<evidence>} → documents: which evidence
 *     decided each verdict ({@code sha256}, {@code version} or {@code none}, see {@code ingest.RepairClose}),
 *     sorted; empty when nothing was repaired
 */
public record DrainReport(String runId, int cohortDocuments, int selected, Map<String, Long> outcomes,
                          long sourceRequests, Duration elapsed, boolean interrupted, Forecast forecast,
                          Map<String, String> notAttempted, Map<String, Long> verdicts) {

    /**
     * @return whether no record of the selection was attempted (every one {@code not_attempted:<reason>}):
     *     nothing was asked of a source, so the run is no drain ({@code drain_runs.status} {@code nothing_attempted})
     */
    public boolean nothingAttempted() {
        return selected > 0 && attemptedNone(outcomes);
    }

    /** @return whether every outcome counted is a {@code not_attempted:<reason>} one (and there is one) */
    static boolean attemptedNone(Map<String, Long> outcomes) {
        return !outcomes.isEmpty() && outcomes.keySet().stream().allMatch(k -> k.startsWith(Drain.NOT_ATTEMPTED));
    }

    /**
     * The canary's extrapolation to the whole cohort.
     *
     * @param documents open records in the cohort
     * @param sourceRequests expected source requests (the canary's requests per document times documents)
     * @param duration expected time at the run's rate: requests × the throttle's spacing, {@code (1 s / rate)}
     *     plus its headroom ({@code source-requests.spacing-headroom-percent}), as the drain spaces them
     * @param repairShare share of the canary's tried records that were repaired or deleted at source (closed)
     * @param repairShareLow lower end of its 95% Wilson interval
     * @param repairShareHigh upper end of its 95% Wilson interval
     */
    public record Forecast(int documents, long sourceRequests, Duration duration, double repairShare,
                           double repairShareLow, double repairShareHigh) {
    }
}
