package org.ingestquarantine.operator;

import java.util.Map;

/**
 * How a bulk action ended, as its trail entry keeps it.
 *
 * @param status {@code finished}, {@code interrupted}, {@code refused} or {@code failed}
 * @param selected records it took, or null
 * @param outcomeCounts disposition or drain outcome to documents
 * @param verdictCounts a drain's {@code <disposition> by=<evidence>} to documents
 * @param error one line when refused or failed, else null
 * @param drainRunId a drain's run, else null
 */
record ActionOutcome(String status, Integer selected, Map<String, Long> outcomeCounts,
                     Map<String, Long> verdictCounts, String error, String drainRunId) {

    /** @return a dispose that moved {@code moved} records to unindexable */
    static ActionOutcome disposed(int moved) {
        return new ActionOutcome("finished", moved, Map.of("unindexable", (long) moved), Map.of(), null, null);
    }

    /** @return a drain run's counts, interrupted or not */
    static ActionOutcome drained(DrainReport r) {
        return new ActionOutcome(r.interrupted() ? "interrupted" : "finished", r.selected(), r.outcomes(),
                r.verdicts(), null, r.runId());
    }

    /** @return an action refused as things stood: nothing changed */
    static ActionOutcome refused(ActionRefusedException e) {
        return new ActionOutcome("refused", null, Map.of(), Map.of(), e.getMessage(), null);
    }

    /** @return an action that failed: its first line, records already handled keep their outcome */
    static ActionOutcome failed(RuntimeException e) {
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new ActionOutcome("failed", null, Map.of(), Map.of(),
                OperatorLabels.printable(message.lines().findFirst().orElse(message)), null);
    }
}
