package org.ingestquarantine.operator;

import java.time.Instant;

/**
 * One entry of the unindexable register: the records of a source moved there together (same fingerprint,
 * parser version, class, reason and owner). They stay in coverage's denominator.
 *
 * @param source connector name
 * @param errorFingerprint fingerprint of the records
 * @param parserVersion parser version of the records, or null if unknown
 * @param errorClass class code
 * @param reasonCode why they cannot be indexed ({@code dispose --reason})
 * @param owner the team that owns them, or null
 * @param documents records in the entry
 * @param since earliest first_seen_at
 * @param disposedAt latest closed_at (when the cohort was moved)
 */
public record UnindexableCohort(String source, String errorFingerprint, String parserVersion, String errorClass,
                                String reasonCode, String owner, long documents, Instant since, Instant disposedAt) {
}
