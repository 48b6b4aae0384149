package org.ingestquarantine.operator;

import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The operator's bulk actions, a dispose of a cohort and a drain, with their entry in the actions trail
 * ({@link ActionTrail}), whichever front end asks: the commands, the HTTP API, the page.
 *
 * <p>From the command line an action runs at once (the commands have {@code --dry-run} to look first). From the
 * API or the page it is two steps: a preview (the dry run: the exact selection, its count per source, what it
 * would do) issues a confirmation bound to the action, the selection and its count ({@link Confirmations}); the
 * action requires it and is refused ({@link ActionRefusedException}, nothing changed) when it does not match the
 * selection or the selection's count changed since (checked in the transaction that acts). A canary drain from the
 * API selects at most {@link CanaryPolicy#maxRecords()} records at {@link CanaryPolicy#ratePerSecond()}, one at a
 * time, within the request.
 *
 * <p>An action refused before it starts (input that cannot be right, an unknown fingerprint: exit 2, HTTP 400)
 * leaves no trail entry; every other leaves one: its selection, when, who and through which channel, and how it
 * ended (its counts, a refusal, or the error). Thread-safe.
 */
public final class OperatorActions {

    private final DataSource dataSource;
    private final Dispositions dispositions;
    private final ActionTrail trail;
    private final double headroomPercent;
    private final Confirmations confirmations;
    /** Builds (once) the drain canaries run; null: this process runs no canary from the API. */
    private final Supplier<Drain> drains;
    private final CanaryPolicy canary;
    private final Semaphore canaryRunning;

    /**
     * Actions without canary drains from the API ({@link #withCanaries}).
     *
     * @param dataSource a pool on the migrated schema
     * @param dispositions the disposals
     * @param clock the time of trail entries
     * @param headroomPercent the throttle's spacing headroom, for a drain's forecast
     *     ({@value org.ingestquarantine.ingest.SourceRequestThrottle#HEADROOM_PROPERTY})
     */
    public OperatorActions(DataSource dataSource, Dispositions dispositions, Clock clock, double headroomPercent) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.dispositions = Objects.requireNonNull(dispositions, "dispositions");
        this.trail = new ActionTrail(dataSource, clock);
        this.headroomPercent = headroomPercent;
        this.confirmations = new Confirmations();
        this.drains = null;
        this.canary = null;
        this.canaryRunning = null;
    }

    private OperatorActions(OperatorActions base, Supplier<Drain> drains, CanaryPolicy canary) {
        this.dataSource = base.dataSource;
        this.dispositions = base.dispositions;
        this.trail = base.trail;
        this.headroomPercent = base.headroomPercent;
        this.confirmations = base.confirmations;
        this.drains = Objects.requireNonNull(drains, "drains");
        this.canary = Objects.requireNonNull(canary, "canary");
        this.canaryRunning = new Semaphore(1);
    }

    /**
     * @param drains gives the drain canaries run, wired as the pipeline is; asked at each canary (it may build the
     *     drain on its first call and keep it)
     * @param policy the canaries' largest limit and rate
     * @return these actions, able to run canary drains from the API
     */
    public OperatorActions withCanaries(Supplier<Drain> drains, CanaryPolicy policy) {
        return new OperatorActions(this, drains, policy);
    }

    /**
     * @param limit at most this many entries, or null for {@value ActionTrail#DEFAULT_ACTIONS}
     * @return the trail, newest first
     * @throws BadOperatorInputException if the limit is below 1
     */
    public List<ActionEntry> latest(Integer limit) {
        return trail.latest(limit);
    }

    /**
     * A dispose's dry run and its confirmation. Reads only.
     *
     * @param selection the cohort's fingerprint and filters
     * @return the open records it holds now, per source
     * @throws BadOperatorInputException if no open record matches, or the cohort spans several sources and none is
     *     named (the owner names one team)
     */
    public DisposePreview previewDispose(CohortSelection selection) {
        SortedMap<String, Long> bySource = Dispositions.requireOneSource(selection, dispositions.disposable(selection));
        long records = bySource.values().stream().mapToLong(Long::longValue).sum();
        return new DisposePreview(selection, records, bySource,
                confirmations.issue(BulkAction.DISPOSE, selection, records));
    }

    /**
     * A canary drain's dry run at the canary's rate, and its confirmation. Reads only.
     *
     * @param selection the cohort's fingerprint, filters and the canary's limit
     * @return the selection per source, its record ids and the forecast
     * @throws BadOperatorInputException if the limit is missing or above the policy's, or no open record matches
     * @throws IllegalStateException if this process runs no canary from the API
     */
    public DrainPreview previewCanary(CohortSelection selection) {
        requireCanary(selection);
        DrainPlan plan = DrainPlan.of(dataSource, selection.drain(canary.ratePerSecond(), null), headroomPercent);
        return new DrainPreview(selection, plan, canary.ratePerSecond(), canary.maxRecords(),
                confirmations.issue(BulkAction.DRAIN, selection, plan.cohortDocuments()));
    }

    /**
     * Moves a selection's open records to the unindexable register ({@link Dispositions}), with its trail entry.
     *
     * @param actor who acts, and how
     * @param selection the cohort's fingerprint and filters
     * @param reasonCode why they cannot be indexed
     * @param owner the team that owns the decision
     * @param confirmation the preview's confirmation; required off the command line, none on it
     * @return the trail entry, ended: {@code unindexable} records moved
     * @throws BadOperatorInputException as {@link Dispositions#disposeUnindexable(CohortSelection, String, String,
     *     Long)}, or if the confirmation is missing off the command line; nothing changed
     * @throws ActionRefusedException if the confirmation does not match, or the count changed; nothing changed
     */
    public ActionEntry dispose(Actor actor, CohortSelection selection, String reasonCode, String owner,
                               String confirmation) {
        OperatorLabels.require(reasonCode, OperatorField.REASON);
        OperatorLabels.require(owner, OperatorField.OWNER);
        selection.check();
        requireConfirmation(actor, BulkAction.DISPOSE, confirmation);
        if (confirmation == null) {
            Dispositions.requireOneSource(selection, dispositions.disposable(selection));
        }
        String id = trail.begin(actor, BulkAction.DISPOSE, selection, reasonCode, owner);
        act(id, () -> dispositions.disposeUnindexable(selection, reasonCode, owner, confirmation == null ? null
                : confirmations.verify(confirmation, BulkAction.DISPOSE, selection)), ActionOutcome::disposed);
        return trail.find(id);
    }

    /**
     * Runs a drain from the command line, with its trail entry.
     *
     * @param actor who acts; on the command line (a drain from the API is a {@link #canary})
     * @param drain the drain, wired
     * @param request what to drain; its {@code startedBy} is recorded in {@code drain_runs}
     * @param progress told the records done after each one
     * @return the trail entry, ended, and the run's report
     * @throws BadOperatorInputException as {@link Drain#run(Drain.Request, Drain.Progress)}, or if the actor is not
     *     on the command line
     */
    public DrainAction drain(Actor actor, Drain drain, Drain.Request request, Drain.Progress progress) {
        request.check();
        requireConfirmation(actor, BulkAction.DRAIN, null);
        Drain.requireCohort(dataSource, request);
        String id = trail.begin(actor, BulkAction.DRAIN, CohortSelection.of(request), null, null);
        DrainReport report = act(id, () -> drain.run(request, progress), ActionOutcome::drained);
        return new DrainAction(trail.find(id), report);
    }

    /**
     * Runs a canary drain a preview confirmed, within the call, with its trail entry: at the policy's rate, the
     * run's {@code started_by} {@code <channel>:<actor>}.
     *
     * @param actor who acts, off the command line
     * @param selection the cohort's fingerprint, filters and the canary's limit
     * @param confirmation the preview's confirmation
     * @return the trail entry, ended, and the run's report
     * @throws BadOperatorInputException if the limit is missing or above the policy's, or the confirmation missing
     * @throws ActionRefusedException if the confirmation does not match, the cohort's count changed, or another
     *     canary runs; nothing changed
     * @throws IllegalStateException if this process runs no canary from the API
     */
    public DrainAction canary(Actor actor, CohortSelection selection, String confirmation) {
        requireCanary(selection);
        requireConfirmation(actor, BulkAction.DRAIN, confirmation);
        String id = trail.begin(actor, BulkAction.DRAIN, selection, null, null);
        DrainReport report = act(id, () -> {
            long expected = confirmations.verify(confirmation, BulkAction.DRAIN, selection);
            if (!canaryRunning.tryAcquire()) {
                throw new ActionRefusedException("another canary drain started from the API is running; wait for it"
                        + " to end (GET /api/actions lists it), then preview again");
            }
            try {
                return drains.get().run(selection.drain(canary.ratePerSecond(), actor.startedBy()), (int) expected,
                        (done, selected) -> { });
            } finally {
                canaryRunning.release();
            }
        }, ActionOutcome::drained);
        return new DrainAction(trail.find(id), report);
    }

    /** Runs the action of trail entry {@code id}, ending the entry with its outcome, refusal or error. */
    private <T> T act(String id, Supplier<T> action, Function<T, ActionOutcome> outcome) {
        T result;
        try {
            result = action.get();
        } catch (ActionRefusedException e) {
            endAfter(e, id, ActionOutcome.refused(e));
            throw e;
        } catch (RuntimeException e) {
            endAfter(e, id, ActionOutcome.failed(e));
            throw e;
        }
        trail.end(id, outcome.apply(result));
        return result;
    }

    private void endAfter(RuntimeException cause, String id, ActionOutcome outcome) {
        try {
            trail.end(id, outcome);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private void requireCanary(CohortSelection selection) {
        if (drains == null) {
            throw new IllegalStateException("this process runs no canary drain from the API");
        }
        selection.check();
        canary.check(selection);
    }

    /** An action off the command line is confirmed by its preview; one on it is not (it has --dry-run). */
    private static void requireConfirmation(Actor actor, BulkAction action, String confirmation) {
        boolean commandLine = actor.channel() == ActionChannel.CLI;
        if (commandLine && confirmation != null) {
            throw new IllegalArgumentException("a command's " + action.code() + " takes no confirmation");
        }
        if (!commandLine && (confirmation == null || confirmation.isBlank())) {
            throw new BadOperatorInputException("confirmation is required: preview the " + action.code() + " first"
                    + " and send back the confirmation it gave");
        }
    }
}
