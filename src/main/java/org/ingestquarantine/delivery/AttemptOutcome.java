package org.ingestquarantine.delivery;

import java.util.Locale;

/** How an attempt journal row was closed; the lower-case {@link #code()} is the database form. */
public enum AttemptOutcome {
    /** The document was indexed and the message acknowledged. */
    INDEXED,
    /** Nothing to do (unchanged, stale or deleted at source); acknowledged. */
    SKIPPED,
    /** The attempt failed with a retryable error and handed the message back to the broker. */
    RELEASED,
    /** A quarantine record was committed and the message acknowledged. */
    QUARANTINED,
    /** A route's own rule chose not to index the document ({@code outcomes.skipped}); acknowledged. */
    SKIPPED_BY_POLICY,
    /** The delivery ended without an outcome (a route's {@code stop}); closed before the acknowledgement. */
    ABANDONED,
    /**
     * A fault of our own route (error class {@code pipeline_fault}) handed the message back: not a delivery the
     * document failed, so its class's budget does not count it.
     */
    PIPELINE_FAULT,
    /**
     * The failure-storm breaker had paused the message's source ({@link FailureStorm}): handed back unworked, not a
     * delivery the document failed, so its class's budget does not count it.
     */
    STORM_PAUSED;

    /**
     * @return {@code indexed}, {@code skipped}, {@code released}, {@code quarantined}, {@code skipped_by_policy},
     *     {@code abandoned}, {@code pipeline_fault} or {@code storm_paused}
     */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param code a database code, any case
     * @return the matching outcome
     * @throws IllegalArgumentException if {@code code} names none
     */
    public static AttemptOutcome fromCode(String code) {
        return valueOf(code.trim().toUpperCase(Locale.ROOT));
    }
}
