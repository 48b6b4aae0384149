package org.ingestquarantine.operator;

import java.time.Instant;
import java.util.Map;

/**
 * One row of the actions trail ({@code operator_actions}, V25).
 *
 * @param actionId the action's ULID
 * @param action {@code dispose} or {@code drain}
 * @param actor who the caller said acted
 * @param channel {@code cli}, {@code api} or {@code page}
 * @param startedAt when it started
 * @param finishedAt when it ended, or null while running (or if its process died)
 * @param selection exactly which records it took
 * @param reasonCode a dispose's reason, or null
 * @param owner a dispose's owner, or null
 * @param selected records it took, or null when it took none (refused, failed before selecting)
 * @param status {@code running}, {@code finished}, {@code interrupted} (a drain stopped early), {@code refused}
 *     (nothing changed: see {@code error}) or {@code failed}
 * @param outcomeCounts disposition or drain outcome to documents (a dispose: {@code unindexable})
 * @param verdictCounts a drain's repaired records, {@code <disposition> by=<evidence>} to documents
 * @param error why it was refused or failed (one line), or null
 * @param drainRunId a drain's run ({@code drain_runs}, {@code /api/drains}), or null
 */
public record ActionEntry(String actionId, String action, String actor, String channel, Instant startedAt,
                          Instant finishedAt, CohortSelection selection, String reasonCode, String owner,
                          Integer selected, String status, Map<String, Long> outcomeCounts,
                          Map<String, Long> verdictCounts, String error, String drainRunId) {
}
