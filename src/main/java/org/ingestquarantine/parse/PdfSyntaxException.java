package org.ingestquarantine.parse;

/**
 * PDFBox could not read the document: it threw while loading, or text extraction threw on every page.
 * Reason {@value #PARSE_ERROR}. The cause is PDFBox's exception (or its {@code RemoteCause} copy).
 */
public final class PdfSyntaxException extends ParseException {

    /** The only reason code of this exception. */
    public static final String PARSE_ERROR = "parse_error";

    PdfSyntaxException(String message, Throwable cause) {
        super(PARSE_ERROR, message, cause);
    }
}
