package org.ingestquarantine.operator;

import java.util.Map;
import java.util.TreeMap;
import org.ingestquarantine.ingest.RepairClose;

/**
 * A drain run's counters as it goes: records per outcome, repaired records per outcome and the evidence that decided
 * their verdict, one explanation per {@value Drain#NOT_ATTEMPTED}{@code <reason>}, and the source requests made. One
 * run's thread only.
 */
final class DrainTally {

    private final Map<String, Long> outcomes = new TreeMap<>();
    private final Map<String, String> notAttempted = new TreeMap<>();
    private final Map<String, Long> verdicts = new TreeMap<>();
    private long requests;

    /** Counts a source request (a HEAD or GET), after its tokens were taken. */
    void requested() {
        requests++;
    }

    /** @return source requests made so far */
    long requests() {
        return requests;
    }

    /**
     * @param reason why this process may not ask the record's source
     * @param why the explanation; the first of each reason is kept
     * @return the outcome {@value Drain#NOT_ATTEMPTED}{@code <reason>}
     */
    String notAttempted(String reason, String why) {
        String outcome = Drain.NOT_ATTEMPTED + reason;
        notAttempted.putIfAbsent(outcome, why);
        return outcome;
    }

    /**
     * @param outcome a record's outcome
     * @param by the evidence that decided a repaired record's verdict, or null
     */
    void count(String outcome, RepairClose.Evidence by) {
        outcomes.merge(outcome, 1L, Long::sum);
        if (by != null) {
            verdicts.merge(outcome + " by=" + by.code(), 1L, Long::sum);
        }
    }

    /** @return records per outcome, sorted */
    Map<String, Long> outcomes() {
        return outcomes;
    }

    /** @return an explanation per {@value Drain#NOT_ATTEMPTED}{@code <reason>} outcome, sorted */
    Map<String, String> notAttempted() {
        return notAttempted;
    }

    /** @return repaired records per {@code <outcome> by=<evidence>}, sorted */
    Map<String, Long> verdicts() {
        return verdicts;
    }
}
