package org.ingestquarantine.failure;



/**
 * Our own output broke a contract of the index or model, e.g. an embedding whose width differs from the
 * index's vector dimensions (reason {@value #VECTOR_WIDTH}). Class {@code downstream_contract}: no retry,
 * it alerts. The message names widths and positions only, never text.
 */
public class DownstreamContractException extends RuntimeException implements Reasoned {

    /** Reason code for an embedding of the wrong width. */
    public static final String VECTOR_WIDTH = "vector_width";

    private final String reasonCode;

    /**
     * @param reasonCode lower-case snake_case reason, e.g. {@value #VECTOR_WIDTH}
     * @param message what broke and what to do next
     */
    public DownstreamContractException(String reasonCode, String message) {
        super(message);
        this.reasonCode = reasonCode;
    }

    @Override
    public String reasonCode() {
        return reasonCode;
    }
}
