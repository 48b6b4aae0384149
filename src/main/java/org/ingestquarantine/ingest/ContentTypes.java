package org.ingestquarantine.ingest;

import org.ingestquarantine.parse.PdfSignature;

/** Recognises a document's type from its first bytes, never from its name. */
public final class ContentTypes {

    /** The type of a document the parser would take for a PDF ({@link PdfSignature#matches}). */
    public static final String PDF = "application/pdf";
    /** Anything else. */
    public static final String UNKNOWN = "application/octet-stream";
    /** A document of 0 bytes. */
    public static final String EMPTY = "application/x-empty";

    private ContentTypes() {
    }

    /**
     * @param head the first bytes of the document
     * @param length how many of them are valid
     * @return {@link #PDF}, {@link #EMPTY} or {@link #UNKNOWN}
     */
    public static String sniff(byte[] head, int length) {
        if (length == 0) {
            return EMPTY;
        }
        return PdfSignature.matches(head, length) ? PDF : UNKNOWN;
    }
}
