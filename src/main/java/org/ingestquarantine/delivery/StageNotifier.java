package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.spi.CamelEvent.StepStartedEvent;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Marks the stage an attempt enters, on the exchange ({@link PipelineKeys#STAGE}) and in the attempt
 * journal, from the {@code step} blocks of routes/process-document.camel.yaml: each step's id is a stage.
 * So an attempt that dies is remembered with the stage it died in (to within one heartbeat: the journal keeps
 * the mark in memory and the heartbeat writes it, {@link AttemptJournal#stage}), and no route needs a bean call
 * between its stages. Runs on the thread that enters the step, before the step's first processor.
 *
 * <p>A journal write that fails (the database is away) is logged at debug level and not retried: the
 * stage is evidence, not a condition for the work; the outcome's write decides what happens next.
 */
public final class StageNotifier extends EventNotifierSupport {

    private static final Logger LOG = LoggerFactory.getLogger(StageNotifier.class);

    /** Where a stage mark goes; in the application, {@link AttemptJournal#stage}. */
    @FunctionalInterface
    public interface Marks {

        /**
         * @param attemptId the attempt's journal id
         * @param stage the stage it enters
         * @throws JournalWriteException when the mark cannot be written
         */
        void stage(long attemptId, String stage);
    }

    private final Marks journal;

    /** @param journal where the marks go, e.g. {@code attemptJournal::stage} */
    public StageNotifier(Marks journal) {
        this.journal = journal;
        setupIgnore(true);
        setIgnoreStepEvents(false);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof StepStartedEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        StepStartedEvent started = (StepStartedEvent) event;
        Exchange exchange = started.getExchange();
        exchange.setProperty(PipelineKeys.STAGE, started.getStepId());
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            try {
                journal.stage(attemptId, started.getStepId());
            } catch (JournalWriteException e) {
                LOG.debug("stage {} of attempt {} not journalled ({})", started.getStepId(), attemptId,
                        e.getClass().getSimpleName());
            }
        }
    }
}
