package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.Ordered;
import org.apache.camel.support.SynchronizationAdapter;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.LogSafe;
import org.ingestquarantine.quarantine.QuarantineRecorder;

/**
 * Closes the attempt of a delivery that completed without an outcome, as {@code abandoned}: a route's {@code stop},
 * {@code filter} or {@code choice} that skipped every outcome bean. Added to the exchange by
 * {@link DeliveryGuard#admit} once the attempt is open, so no route edit can remove it; it runs as the exchange's
 * unit of work is done, first of its synchronizations ({@link #getOrder}: Camel's {@code
 * UnitOfWorkHelper.doneSynchronizations} sorts them by {@link Ordered}), so before the consumer's own
 * acknowledgement (the SQS delete, a synchronization the consumer added when it received the message). The delivery
 * then carries {@value #OUTCOME} as its {@link PipelineKeys#OUTCOME}: {@code ingest} counts it (and exits 3),
 * {@value PipelineMetrics#ABANDONED} counts it, and a WARN line names the record and the stage it ended in.
 *
 * <p>A failed exchange (released, or a failure not yet recorded) is not abandoned: its message goes back.
 */
public final class AbandonedDelivery extends SynchronizationAdapter {

    /** {@link PipelineKeys#OUTCOME} of a delivery that ended without one. */
    public static final String OUTCOME = "abandoned";

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AbandonedDelivery.class);

    /** Closes an attempt with an outcome ({@link AttemptJournal#close(long, AttemptOutcome)}). */
    @FunctionalInterface
    public interface Closer {
        /**
         * @param attemptId the attempt
         * @param outcome how it ended
         */
        void close(long attemptId, AttemptOutcome outcome);
    }

    private final long attemptId;
    private final Closer closer;
    private final PipelineMetrics metrics;

    /**
     * @param attemptId the delivery's open attempt
     * @param closer closes it
     * @param metrics counts the abandoned delivery
     */
    public AbandonedDelivery(long attemptId, Closer closer, PipelineMetrics metrics) {
        this.attemptId = attemptId;
        this.closer = java.util.Objects.requireNonNull(closer, "closer");
        this.metrics = java.util.Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public void onComplete(Exchange exchange) {
        if (exchange.getProperty(PipelineKeys.OUTCOME) != null
                || exchange.getProperty(PipelineKeys.SETTLED_ELSEWHERE, false, Boolean.class)) {
            return;
        }
        String stage = exchange.getProperty(PipelineKeys.STAGE, String.class);
        closer.close(attemptId, AttemptOutcome.ABANDONED);
        exchange.setProperty(PipelineKeys.OUTCOME, OUTCOME);
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        metrics.abandoned(message == null ? null : message.source(), stage);
        String node = exchange.getExchangeExtension().getHistoryNodeId();
        LOG.warn("{} abandoned: the delivery ended in stage {}{} without an outcome (a route's stop, filter or choice"
                        + " skipped every outcome bean); its attempt is closed as abandoned and the message acknowledged."
                        + " End it with an outcome instead (routes/README.md, \"One outcome per delivery\")",
                QuarantineRecorder.keyOf(exchange).logForm(), LogSafe.identity(stage), node == null ? "" : " (last node " + LogSafe.identity(node) + ")");
    }

    /** Runs before every synchronization of lower precedence: the consumer's acknowledgement among them. */
    @Override
    public int getOrder() {
        return Ordered.HIGHEST;
    }
}
