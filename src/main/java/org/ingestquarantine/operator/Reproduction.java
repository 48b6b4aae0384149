package org.ingestquarantine.operator;

/**
 * What re-parsing a record's stored payload with the running parser showed. Nothing was written.
 *
 * @param dlqId the record
 * @param document {@code source/doc_id}
 * @param outcome the verdict
 * @param recordedFingerprint the record's fingerprint
 * @param recordedStage the stage the record failed at (re-parsing says nothing about later stages)
 * @param fingerprint the fingerprint of the failure now, or null when it parsed or was not parsed
 * @param errorClass class code of the failure now, or null
 * @param reasonCode reason of the failure now, or null
 * @param pages pages parsed, or null when it did not parse
 * @param chars non-whitespace characters parsed, or null when it did not parse
 * @param parserVersion the parser version that ran
 * @param storedSha256 SHA-256 of the bytes read from the payload store, or null when there were none
 */
public record Reproduction(String dlqId, String document, Outcome outcome, String recordedFingerprint,
                           String recordedStage, String fingerprint, String errorClass, String reasonCode,
                           Integer pages, Long chars, String parserVersion, String storedSha256) {

    /** The verdict of {@link Reproducer#reproduce(String)}. */
    public enum Outcome {
        /** The running parser fails the same way: same fingerprint. */
        SAME_FAILURE,
        /** The running parser reads the stored bytes. */
        NOW_PARSES,
        /** The running parser fails another way. */
        DIFFERENT_FAILURE,
        /** No payload is stored any more (expired or erased) or it was never fetched. */
        PAYLOAD_GONE,
        /** The stored object's SHA-256 is not the record's: not parsed, the evidence is damaged. */
        PAYLOAD_MISMATCH
    }

    /** @return the verdict as one line, e.g. {@code same failure (fingerprint 3fa4...)} */
    public String summary() {
        return switch (outcome) {
            case SAME_FAILURE -> "same failure (fingerprint " + fingerprint + ")";
            case NOW_PARSES -> "now parses (" + pages + " pages, " + chars + " chars)";
            case DIFFERENT_FAILURE -> "different failure (fingerprint " + fingerprint + ", " + errorClass + "/"
                    + reasonCode + "; recorded " + recordedFingerprint + ")";
            case PAYLOAD_GONE -> "payload expired/erased";
            case PAYLOAD_MISMATCH -> "stored payload has sha256 " + storedSha256
                    + ", not the record's; not parsed (the evidence is damaged)";
        };
    }
}
