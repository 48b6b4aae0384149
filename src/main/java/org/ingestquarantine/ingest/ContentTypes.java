package org.ingestquarantine.ingest;

import java.nio.charset.StandardCharsets;

/** Recognises a document's type from its first bytes, never from its name. */
public final class ContentTypes {

    /** The type of a document whose bytes start (within the first 1024) with {@code %PDF-}. */
    public static final String PDF = "application/pdf";
    /** Anything else. */
    public static final String UNKNOWN = "application/octet-stream";
    /** A document of 0 bytes. */
    public static final String EMPTY = "application/x-empty";

    private static final byte[] PDF_MAGIC = "%PDF-".getBytes(StandardCharsets.US_ASCII);

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
        outer:
        for (int i = 0; i + PDF_MAGIC.length <= length; i++) {
            for (int j = 0; j < PDF_MAGIC.length; j++) {
                if (head[i + j] != PDF_MAGIC[j]) {
                    continue outer;
                }
            }
            return PDF;
        }
        return UNKNOWN;
    }
}
