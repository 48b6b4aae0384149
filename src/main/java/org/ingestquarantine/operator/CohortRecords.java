package org.ingestquarantine.operator;

import java.util.List;

/**
 * The open records of one cohort, oldest first, and how many the limit left out.
 *
 * @param errorFingerprint the cohort's fingerprint
 * @param parserVersion its parser version, or null for every version
 * @param errorClass its class code, or null for every class
 * @param total open records in the cohort
 * @param cut records left out by the limit
 * @param records the records shown, oldest first seen first
 */
public record CohortRecords(String errorFingerprint, String parserVersion, String errorClass, long total, long cut,
                            List<CohortRecord> records) {
}
