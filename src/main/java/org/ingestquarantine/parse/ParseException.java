package org.ingestquarantine.parse;

import org.ingestquarantine.failure.Reasoned;

/**
 * A document could not be turned into text. Each subclass stands for one way of failing and carries a
 * fixed set of {@link #reasonCode() reason codes}; the pipeline maps the subclass to an error class.
 *
 * <p>Messages never contain document text: they name the failure and, where useful, what to do next.
 * When the failure happened inside a worker JVM, the exception is rebuilt in the caller's JVM as the same
 * subclass with an {@link org.ingestquarantine.failure.RemoteCause} as its cause.
 */
public abstract class ParseException extends Exception implements Reasoned {

    /** The pipeline stage every parse failure belongs to: {@value}. */
    public static final String STAGE = "parse";

    private final String reasonCode;

    protected ParseException(String reasonCode, String message, Throwable cause) {
        super(message, cause);
        this.reasonCode = reasonCode;
    }

    @Override
    public final String reasonCode() {
        return reasonCode;
    }

    /** @return the pipeline stage that failed, always {@value #STAGE} */
    public final String stage() {
        return STAGE;
    }
}
