package org.ingestquarantine.delivery;

/**
 * Another attempt at this message is live (its owner still renews its lease) and did not end within the
 * wait the {@link DeliveryGuard} allows: this delivery hands the message back to the broker without
 * working on it and without opening an attempt, so it is neither a death nor a failure of the document.
 * routes/error-policy.camel.yaml releases it with {@link org.ingestquarantine.pipeline.PipelineKeys#BACKOFF};
 * it is never classified against a budget.
 */
public class AttemptInProgressException extends RuntimeException {

    /** @param live live attempts at the message */
    public AttemptInProgressException(int live) {
        super(live + " other attempt(s) at this message are still running; handed back without working on it");
    }
}
