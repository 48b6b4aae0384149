package org.ingestquarantine.operator;

import com.github.f4b6a3.ulid.UlidCreator;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.ingestquarantine.ingest.RepairClose;
import org.ingestquarantine.ingest.SourceRequestThrottle;

/**
 * One drain run ({@link Drain#run(Drain.Request, Integer, Drain.Progress)}): fixes its selection
 * ({@link DrainRuns#start}), replays it record by record, oldest first, under the run's own throttle, writes each
 * item's outcome as it goes, and closes the run row with its counts. Interrupting the thread stops it between
 * records: the rest count as {@code not_tried}.
 *
 * @param runs the run's rows
 * @param replay replays one record
 * @param headroomPercent the run's own spacing headroom
 */
record DrainRun(DrainRuns runs, DrainReplay replay, double headroomPercent) {

    /** @param request a checked request */
    DrainReport run(Drain.Request request, Integer expectedCohort, Drain.Progress progress) {
        long started = System.nanoTime();
        String runId = UlidCreator.getMonotonicUlid().toString();
        DrainRuns.Selection selection = runs.start(runId, request, expectedCohort);
        SourceRequestThrottle own = SourceRequestThrottle.local(request.ratePerSecond(), headroomPercent);
        DrainTally tally = new DrainTally();
        boolean interrupted = false;
        int done = 0;
        for (String dlqId : selection.dlqIds()) {
            String outcome;
            AtomicReference<RepairClose.Evidence> by = new AtomicReference<>();
            long asked = tally.requests();
            if (interrupted || Thread.currentThread().isInterrupted()) {
                interrupted = true;
                outcome = "not_tried";
            } else {
                try {
                    outcome = replay.replay(runId, dlqId, own, tally, by);
                } catch (InterruptedException e) {
                    interrupted = true;
                    outcome = "not_tried";
                }
                done++;
                progress.update(done, selection.dlqIds().size());
            }
            tally.count(outcome, by.get());
            // a record is replayed when its source was asked again, whatever came of it
            runs.markItem(runId, dlqId, outcome, by.get(), tally.requests() > asked);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        DrainReport.Forecast forecast = selection.dlqIds().size() < selection.cohortDocuments()
                ? DrainForecast.of(selection.cohortDocuments(), selection.dlqIds().size(), tally.outcomes(),
                        tally.requests(), SourceRequestThrottle.spacing(request.ratePerSecond(), headroomPercent))
                : null;
        runs.finish(runId, interrupted, tally.outcomes(), tally.requests());
        return new DrainReport(runId, selection.cohortDocuments(), selection.dlqIds().size(), tally.outcomes(),
                tally.requests(), elapsed, interrupted, forecast, tally.notAttempted(), tally.verdicts());
    }
}
