package org.ingestquarantine.parse;

/**
 * The PDF cannot be opened without credentials we do not have: it needs a user password, or it uses a
 * public-key (certificate) security handler. Reason {@value #ENCRYPTED}. Owner-password-only encryption
 * is not a failure and never produces this exception.
 */
public final class EncryptedPdfException extends ParseException {

    /** The only reason code of this exception. */
    public static final String ENCRYPTED = "encrypted";

    EncryptedPdfException(String message, Throwable cause) {
        super(ENCRYPTED, message, cause);
    }
}
