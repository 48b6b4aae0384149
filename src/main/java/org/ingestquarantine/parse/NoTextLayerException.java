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
}
