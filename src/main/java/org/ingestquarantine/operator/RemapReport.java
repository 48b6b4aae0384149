package org.ingestquarantine.operator;

import java.util.List;
import java.util.SortedMap;

/**
 * Answer to {@code fingerprints remap}: what became of the open records whose fingerprint an older algorithm
 * computed (or that were written before versioning). {@code moved + alreadyCurrent + left + changedMeanwhile} is
 * {@code selected}.
 *
 * @param runningVersion the algorithm's version now ({@link org.ingestquarantine.failure.ErrorFingerprint#VERSION})
 * @param dryRun whether nothing was written (the counts say what a remap would do now)
 * @param selected open records of an older version or of none
 * @param moved records recomputed to another fingerprint, so moved to the running version's cohort
 * @param alreadyCurrent records whose fingerprint the running version gives too (a root cause that is not
 *     Reasoned, or written by it before versioning): only their version was written
 * @param left records whose fingerprint could not be recomputed, left exactly as they were
 * @param leftBy those per reason ({@code no_stack_trace}, {@code not_reproduced}, ...), sorted
 * @param changedMeanwhile records a failure, a drain or a dispose changed while the remap ran, left to that change
 * @param mappings old fingerprint to new, with the records moved, per error class
 */
public record RemapReport(int runningVersion, boolean dryRun, long selected, long moved, long alreadyCurrent, long left,
                          SortedMap<String, Long> leftBy, long changedMeanwhile, List<Mapping> mappings) {

    /**
     * Records of one cohort fingerprint moved to another.
     *
     * @param errorClass their error class
     * @param from the fingerprint they had
     * @param to the running version's
     * @param records how many
     */
    public record Mapping(String errorClass, String from, String to, long records) {
    }
}
