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
 * @param recordedClass the record's error class code
 * @param recordedReason the record's reason code, or null
 * @param recordedSha256 the record's payload SHA-256, or null when none was ever stored or it was erased
 */
public record Reproduction(String dlqId, String document, Outcome outcome, String recordedFingerprint,
                           String recordedStage, String fingerprint, String errorClass, String reasonCode,
                           Integer pages, Long chars, String parserVersion, String storedSha256,
                           String recordedClass, String recordedReason, String recordedSha256) {

    /** The verdict of {@link Reproducer#reproduce(String)}. */
    public enum Outcome {
        /** The running parser fails the same way: same fingerprint. */
        SAME_FAILURE,
        /** The running parser reads the stored bytes. */
        NOW_PARSES,
        /** The running parser fails another way. */
        DIFFERENT_FAILURE,
        /**
         * The source reported 0 bytes at preflight, so nothing was stored; the running code refuses 0 bytes before
         * parsing, as recorded ({@code permanent_input/empty}).
         */
        EMPTY_PAYLOAD,
        /**
         * The record is of a message that named no valid document: a doc_id that broke the schema (doc_id
         * {@value org.ingestquarantine.pipeline.RecordKey#INVALID_DOC_ID_PREFIX}...) or a message that could not
         * be read at all (source {@value org.ingestquarantine.pipeline.RecordKey#INVALID_MESSAGES_SOURCE}). Its
         * stored payload, if any, is the message itself, not a document: nothing is parsed.
         */
        INVALID_MESSAGE,
        /** No payload was ever stored for the record (it failed before its bytes were fetched). */
        NO_PAYLOAD_STORED,
        /** The payload expired ({@code expire-payloads}); the record keeps its sha256 and size. */
        PAYLOAD_EXPIRED,
        /** The record was erased: a tombstone without payload. */
        PAYLOAD_ERASED,
        /** The record names a payload object that is not in the store. */
        PAYLOAD_MISSING,
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
            case EMPTY_PAYLOAD -> "empty payload (0 bytes at the source, nothing stored): same failure "
                    + recordedClass + "/" + recordedReason + " (the running code refuses 0 bytes before parsing)";
            case INVALID_MESSAGE -> "nothing to reproduce: the message named no valid document ("
                    + (document.startsWith(org.ingestquarantine.pipeline.RecordKey.INVALID_MESSAGES_SOURCE + "/")
                    ? "unreadable message" : "invalid doc_id") + "); its stored payload is the message, not a document";
            case NO_PAYLOAD_STORED -> "no payload stored: the record failed at stage " + recordedStage + " ("
                    + recordedClass + "/" + recordedReason + ") before any bytes were kept; nothing to parse";
            case PAYLOAD_EXPIRED -> "payload expired (it had sha256 " + recordedSha256 + "); the record's metadata"
                    + " stays; a drain goes back to the source";
            case PAYLOAD_ERASED -> "payload erased (the record is a tombstone); nothing to parse";
            case PAYLOAD_MISSING -> "payload missing: the record names an object the payload store does not hold;"
                    + " not parsed";
            case PAYLOAD_MISMATCH -> "stored payload has sha256 " + storedSha256
                    + ", not the record's; not parsed (the evidence is damaged)";
        };
    }
}
