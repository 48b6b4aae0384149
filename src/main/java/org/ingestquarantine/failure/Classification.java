package org.ingestquarantine.failure;

import java.util.Objects;

/**
 * The verdict of the {@link ErrorClassifier} on one failure.
 *
 * @param errorClass the class that decides the redelivery budget
 * @param reasonCode a stable lower-case reason such as {@code not_pdf}, or {@code unknown} when the
 *     failure carries none
 * @param cause the throwable in the cause chain whose type decided the class (the outermost mapped one)
 */
public record Classification(ErrorClass errorClass, String reasonCode, Throwable cause) {

    /** Reason recorded when neither the exception nor the mapping names one. */
    public static final String UNKNOWN_REASON = "unknown";

    public Classification {
        Objects.requireNonNull(errorClass, "errorClass");
        Objects.requireNonNull(reasonCode, "reasonCode");
    }
}
