package org.ingestquarantine.parse;

/**
 * The PDF opened and has pages, but text extraction found no non-whitespace character on any page
 * (typically scans without OCR). Reason {@value #NO_TEXT_LAYER}.
 */
public final class NoTextLayerException extends ParseException {

    /** The only reason code of this exception. */
    public static final String NO_TEXT_LAYER = "no_text_layer";

    NoTextLayerException(String message, Throwable cause) {
        super(NO_TEXT_LAYER, message, cause);
    }

    /** @return the failure for a document whose {@code pageCount} pages hold no text (0: no pages at all) */
    static NoTextLayerException of(int pageCount) {
        return new NoTextLayerException(pageCount == 0
                ? "the document has no pages"
                : "none of the " + pageCount + " pages has text; it may need OCR", null);
    }
}
