package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * Marks the stage a delivery has reached, on the exchange and in the attempt journal, so that an
 * attempt that dies is remembered with the stage it died in.
 */
public final class StageTracker {

    private final AttemptJournal journal;

    /** @param journal the attempt journal */
    public StageTracker(AttemptJournal journal) {
        this.journal = journal;
    }

    /**
     * @param exchange the delivery
     * @param stage the stage it enters: preflight, fetch, parse, chunk, embed or index
     */
    public void enter(Exchange exchange, String stage) {
        exchange.setProperty(PipelineKeys.STAGE, stage);
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            journal.stage(attemptId, stage);
        }
    }

    /**
     * Closes this delivery's attempt with its outcome, if one was opened.
     *
     * @param exchange the delivery
     * @param outcome indexed, skipped, released or quarantined
     */
    public void close(Exchange exchange, String outcome) {
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            journal.close(attemptId, outcome);
        }
    }
}
