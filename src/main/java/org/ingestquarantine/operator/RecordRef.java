package org.ingestquarantine.operator;

import java.util.regex.Pattern;

/**
 * How an operator names one quarantine record: its {@code dlq_id} (a 26-character ULID) or
 * {@code source/doc_id} as in the logs (split at the first {@code /}; the doc_id may contain more).
 *
 * @param dlqId the ULID, or null when named by document
 * @param source connector name, or null when named by dlq_id
 * @param docId document id, or null when named by dlq_id
 */
public record RecordRef(String dlqId, String source, String docId) {

    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");
    private static final Pattern ULID = Pattern.compile("[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}");

    /**
     * @param text a dlq_id or {@code source/doc_id}
     * @return the reference
     * @throws BadOperatorInputException if it is neither, or holds a control character (no recorded identity does)
     */
    public static RecordRef parse(String text) {
        String t = text == null ? "" : text.trim();
        if (ULID.matcher(t).matches()) {
            return new RecordRef(t.toUpperCase(java.util.Locale.ROOT), null, null);
        }
        if (CONTROL.matcher(t).find()) {
            throw new BadOperatorInputException("'" + bounded(t) + "' names no record: a source/doc_id holds no control"
                    + " characters (a document named with one is recorded under its source as "
                    + org.ingestquarantine.pipeline.RecordKey.INVALID_DOC_ID_PREFIX + "<32 hex digits of the name's"
                    + " sha256> when the source"
                    + " is configured, else by its delivery key under source " + org.ingestquarantine.pipeline.RecordKey.INVALID_MESSAGES_SOURCE
                    + ")");
        }
        int slash = t.indexOf('/');
        if (slash <= 0 || slash == t.length() - 1) {
            throw new BadOperatorInputException("'" + bounded(t) + "' names no record; give a dlq_id (26 characters)"
                    + " or source/doc_id");
        }
        return new RecordRef(null, t.substring(0, slash), t.substring(slash + 1));
    }

    /** @return the reference as the operator would type it */
    @Override
    public String toString() {
        return dlqId != null ? dlqId : source + "/" + docId;
    }

    static String bounded(String s) {
        String oneLine = s.replaceAll("\\p{Cntrl}", "?");
        return oneLine.length() <= 120 ? oneLine : oneLine.substring(0, 120) + "...";
    }
}
