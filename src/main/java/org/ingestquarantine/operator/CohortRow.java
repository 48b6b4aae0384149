package org.ingestquarantine.operator;

import java.time.Instant;

/**
 * One cohort of open records: (parser_version, error_class, error_fingerprint).
 *
 * @param parserVersion parser version of the records, or null if unknown
 * @param staleParser whether that version is not the parser running now (a drain is likely to repair these)
 * @param errorClass latest error class code
 * @param errorFingerprint latest fingerprint, or null if unknown
 * @param documents open records in the cohort
 * @param attempts failures recorded over those records
 * @param since earliest first_seen_at
 * @param lastSeen latest last_seen_at
 * @param exampleDlqId one record of the cohort (its smallest dlq_id)
 * @param exampleErrorType that record's error type
 * @param exampleMessage that record's error message, first line, at most {@value OperatorQueries#EXAMPLE_MESSAGE_CHARS}
 *     characters; may quote document text, so it is shown to the operator and never logged
 * @param owners the owners written on the cohort's open records (the source's {@code sources.<name>.owner} when each
 *     was created, or since by {@code sources sync-owners}), sorted, {@link OperatorService#UNOWNED} last for records
 *     that name none
 * @param fingerprintVersion the oldest fingerprint algorithm version among the cohort's open records
 *     ({@link org.ingestquarantine.failure.ErrorFingerprint#VERSION} when all are of the running one), null when some
 *     were written before versioning (schema V28)
 * @param olderFingerprint whether some of them are fingerprinted by an older algorithm or before versioning
 * @param olderFingerprintDocuments open records of the cohort whose fingerprint is of an older algorithm or of none
 *     known: {@code fingerprints remap} recomputes them
 */
public record CohortRow(String parserVersion, boolean staleParser, String errorClass, String errorFingerprint,
                        long documents, long attempts, Instant since, Instant lastSeen, String exampleDlqId,
                        String exampleErrorType, String exampleMessage, java.util.List<String> owners,
                        Integer fingerprintVersion, boolean olderFingerprint, long olderFingerprintDocuments) {
}
