package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.operator.DrainPlan;
import org.ingestquarantine.operator.DrainReport;
import org.ingestquarantine.parse.DocumentParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code drain --fingerprint F [--parser-version V] [--class C] [--source S] --limit N --rate R [--actor NAME]
 * [--dry-run]}.
 */
@Command(name = "drain", mixinStandardHelpOptions = true,
        description = {"Replays a cohort from its SOURCE (never the stored payload): the oldest N open records with the"
                + " fingerprint, fixed when the run starts and recorded in drain_runs. HEAD 404/410 closes a record as"
                + " deleted_at_source; a document that now indexes closes as repaired_content_changed (the source version"
                + " or payload sha256 the record holds changed) or repaired_parser_fixed (also when the record holds"
                + " none); a failure records a new attempt and stays open.",
                "At most R source requests (HEAD and GET) per second. Counts per outcome sum to the selection; a canary"
                        + " (N smaller than the cohort) also forecasts the whole cohort. Ctrl-C stops after the"
                        + " document in hand: every record is closed with its outcome or open as before.",
                "--dry-run prints the selection (records per source, their ids) and how long it would take at R,"
                        + " and changes nothing: no drain_runs row, no record touched.",
                "The actions trail records the drain (actions lists it): who (--actor, also drain_runs.started_by),"
                        + " the selection, the count selected, the counts per outcome."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the run ended; counts per outcome printed",
                "1:the database or the data folder could not be used",
                "2:bad arguments, or no open record matches",
                DrainCommand.NOTHING_ATTEMPTED_EXIT + ":nothing was drained: every selected record was not_attempted:<reason>"
                        + " (this process may not ask its source), left exactly as it was; one line on stderr says why"})
final class DrainCommand extends OperatorCommand {

    /** Exit code when no selected record was attempted (every one {@code not_attempted:<reason>}). */
    static final int NOTHING_ATTEMPTED_EXIT = 3;

    @Option(names = "--fingerprint", required = true, paramLabel = "F", description = "The cohort's error fingerprint.")
    String fingerprint;

    @Option(names = "--parser-version", paramLabel = "V", description = "Only records of this parser version.")
    String parserVersion;

    @Option(names = "--class", paramLabel = "C", description = "Only records of this error class.")
    String errorClass;

    @Option(names = "--source", paramLabel = "S", description = "Only records of this source.")
    String source;

    @Option(names = "--dry-run", description = "Print the selection and its forecast; change nothing.")
    boolean dryRun;

    @Option(names = "--limit", required = true, paramLabel = "N", description = "Most records to replay (a canary: small).")
    int limit;

    @Option(names = "--rate", required = true, paramLabel = "R", description = "Most source requests per second, e.g. 5.")
    double rate;

    @Mixin
    ActorOption actor;

    private Drain.Request request() {
        return new Drain.Request(fingerprint, parserVersion, errorClass, limit, rate, actor.actor().startedBy(), source);
    }

    @Override
    void validate() {
        actor.actor();
        request().check();
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) throws Exception {
        runtime.service().requireKnownSource(source);
        if (dryRun) {
            DrainPlan plan = DrainPlan.of(runtime.database().dataSource(), request(),
                    runtime.settings().requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY));
            print(out, plan, text(plan));
            return 0;
        }
        Thread worker = Thread.currentThread();
        installInterrupt(worker);
        boolean bar = !json && System.console() != null;
        // an unknown cohort is refused before the parse workers start and the model loads (seconds)
        Drain.requireCohort(runtime.database().dataSource(), request());
        try (DocumentParser parser = runtime.openParser()) {
            Drain drain = runtime.drain(parser);
            DrainReport report;
            if (bar) {
                try (ProgressBar progress = new ProgressBarBuilder().setTaskName("drain").setInitialMax(limit)
                        .setStyle(ProgressBarStyle.ASCII).continuousUpdate().build()) {
                    report = runtime.actions().drain(actor.actor(), drain, request(), (done, selected) -> {
                        progress.maxHint(selected);
                        progress.stepTo(done);
                    }).report();
                }
            } else {
                report = runtime.actions().drain(actor.actor(), drain, request(), (done, selected) -> { }).report();
            }
            print(out, report, text(report));
            if (report.nothingAttempted()) {
                spec.commandLine().getErr().println(spec.name() + ": nothing drained: all " + report.selected()
                        + " selected records were not attempted (" + String.join(", ", report.notAttempted().keySet()
                        .stream().map(k -> k.substring(Drain.NOT_ATTEMPTED.length())).toList()) + "): "
                        + report.notAttempted().values().iterator().next());
                spec.commandLine().getErr().flush();
                return NOTHING_ATTEMPTED_EXIT;
            }
            return 0;
        } finally {
            Thread.interrupted(); // a Ctrl-C after the last record is not an error
        }
    }

    private static void installInterrupt(Thread worker) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("INT"), signal -> worker.interrupt());
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            // no SIGINT on this platform: Ctrl-C ends the JVM, each record stays closed or open as committed
        }
    }

    /** Record ids a dry run's text lists; {@code --json} lists every one. */
    static final int DRY_RUN_IDS_SHOWN = 20;

    /** @return a dry run as text: the selection per source, its first ids, the forecast */
    String text(DrainPlan p) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "dry run: nothing changed; drain would select %d of %d open records"
                        + " (the oldest first), about %d source requests, %s at %s/s (the whole cohort: %s)%n",
                p.dlqIds().size(), p.cohortDocuments(), p.sourceRequests(), age(p.duration()), rate,
                age(p.cohortDuration())));
        Table t = new Table("source", "selected");
        p.selectedBySource().forEach(t::row);
        b.append(t).append(System.lineSeparator());
        p.dlqIds().stream().limit(DRY_RUN_IDS_SHOWN).forEach(id -> b.append("  ").append(id).append(System.lineSeparator()));
        if (p.dlqIds().size() > DRY_RUN_IDS_SHOWN) {
            b.append("  ... ").append(p.dlqIds().size() - DRY_RUN_IDS_SHOWN).append(" more (--json lists every one)");
        }
        return b.toString().stripTrailing();
    }

    /** @return the run's report as text: counts per outcome, why records were not attempted, a canary's forecast */
    String text(DrainReport r) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "drain run %s: %d of %d open records selected, %d source requests in %.1f s%s%n",
                r.runId(), r.selected(), r.cohortDocuments(), r.sourceRequests(), r.elapsed().toMillis() / 1000.0,
                r.interrupted() ? " (interrupted: not_tried records are open as before)" : ""));
        for (Map.Entry<String, Long> e : r.outcomes().entrySet()) {
            b.append(String.format(Locale.ROOT, "  %-40s %d%n", e.getKey(), e.getValue()));
            // which evidence decided the repaired ones: the payload's sha256, else the source version, else none
            r.verdicts().forEach((verdict, n) -> {
                if (verdict.startsWith(e.getKey() + " ")) {
                    b.append(String.format(Locale.ROOT, "    %-38s %d%n", verdict.substring(e.getKey().length() + 1), n));
                }
            });
        }
        r.notAttempted().forEach((outcome, why) -> b.append(String.format(Locale.ROOT,
                "%d records not attempted (%s), left exactly as they were: %s%n", r.outcomes().getOrDefault(outcome, 0L),
                outcome.substring(Drain.NOT_ATTEMPTED.length()), why)));
        DrainReport.Forecast f = r.forecast();
        if (f != null) {
            b.append(String.format(Locale.ROOT, "forecast for the whole cohort: %d documents, %d source requests, %s at %s/s;"
                            + " the canary closed %.0f%% (95%% interval %.0f%%-%.0f%%)",
                    f.documents(), f.sourceRequests(), age(f.duration()), rate, f.repairShare() * 100,
                    f.repairShareLow() * 100, f.repairShareHigh() * 100));
        }
        return b.toString().stripTrailing();
    }
}
