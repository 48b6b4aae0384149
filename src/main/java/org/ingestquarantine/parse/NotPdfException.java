package org.ingestquarantine.parse;

/**
 * The bytes are not a PDF: no {@code %PDF} header and no PDF object syntax within the first
 * {@value PdfSignature#SEARCH_WINDOW_BYTES} bytes (reason {@value #NOT_PDF}), or the file is empty (reason
 * {@value #EMPTY}). The input itself is unusable; retrying cannot help.
 */
public final class NotPdfException extends ParseException {

    /** Reason code for bytes without a PDF header. */
    public static final String NOT_PDF = "not_pdf";
    /** Reason code for a zero-byte file. */
    public static final String EMPTY = "empty";

    NotPdfException(String reasonCode, String message, Throwable cause) {
        super(reasonCode, message, cause);
    }

    /** @return the failure for a zero-byte input */
    static NotPdfException empty() {
        return new NotPdfException(EMPTY, "the file is empty (0 bytes)", null);
    }

    /** @return the failure for input that does not start like a PDF */
    static NotPdfException notPdf() {
        return new NotPdfException(NOT_PDF, "neither a %PDF header nor PDF object syntax in the first "
                + PdfSignature.SEARCH_WINDOW_BYTES + " bytes; the file is not a PDF", null);
    }
}
