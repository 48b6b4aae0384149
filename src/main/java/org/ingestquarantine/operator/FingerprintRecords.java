package org.ingestquarantine.operator;

import java.util.List;

/**
 * The records of one fingerprint, oldest first seen first, and how many the limit left out.
 *
 * @param errorFingerprint the fingerprint
 * @param source only this source, or null for every source
 * @param total records with the fingerprint (and source)
 * @param cut records left out by the limit
 * @param records the records shown
 */
public record FingerprintRecords(String errorFingerprint, String source, long total, long cut,
                                 List<FingerprintRecord> records) {
}
