package org.ingestquarantine.delivery;

/**
 * The failure-storm breaker paused the delivery's source ({@link FailureStorm}): this delivery hands its message back
 * to the broker unworked, after {@link org.ingestquarantine.pipeline.PipelineKeys#BACKOFF}
 * ({@code storm.hand-back-ms}). It is no failure of the document: routes/error-policy.camel.yaml releases it, its
 * attempt is closed as {@link AttemptOutcome#STORM_PAUSED}, and no budget counts it.
 */
public class SourcePausedException extends RuntimeException {

    /**
     * @param source the paused source
     * @param fingerprint the fingerprint it was paused for
     */
    public SourcePausedException(String source, String fingerprint) {
        super("source " + org.ingestquarantine.pipeline.LogSafe.identity(source) + " is paused (fingerprint "
                + fingerprint + "); handed back without working on it");
    }
}
