package org.ingestquarantine.failure;

/**
 * Implemented by our own exceptions that know a stable, machine-readable reason, such as
 * {@code not_pdf}, {@code encrypted}, {@code no_text_layer} or {@code time_limit}. The reason is stored as
 * {@code reason_code} on the quarantine record.
 */
public interface Reasoned {

    /** @return a lower-case snake_case reason code; never document text */
    String reasonCode();
}
