package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.delivery.SourcePauses;
import org.ingestquarantine.operator.Storms;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code storm list} and {@code storm resume --source S}: the sources the failure-storm breaker paused in every
 * consumer (a share of their recent deliveries failing with one fingerprint new to them), and the end of a pause once
 * the cause is fixed. Exit codes as every operator command's ({@link OperatorCommand}); resuming a source that is not
 * paused is exit 2.
 */
@Command(name = "storm", mixinStandardHelpOptions = true,
        description = {"Sources the failure-storm breaker paused (one fingerprint new to a source failing"
                + " storm.failing-percent of its recent deliveries): their deliveries are handed back unworked, not"
                + " quarantined, in every consumer, until resumed."},
        subcommands = {StormCommand.ListPauses.class, StormCommand.Resume.class})
final class StormCommand {

    /** {@code storm list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = {"Lists the paused sources (fingerprint, class and reason, the share that paused them, when"
                    + " the storm began, which consumer paused them), then the latest resumed pauses."})
    static final class ListPauses extends OperatorCommand {

        @Option(names = "--limit", paramLabel = "N", description = "At most N pauses in all (default: "
                + Storms.DEFAULT_LIMIT + ").")
        Integer limit;

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            Storms.Listing listing = runtime.storms().list(limit);
            StringBuilder text = new StringBuilder();
            text.append(table(listing.paused(), false)).append('\n').append(listing.paused().size())
                    .append(" sources paused");
            if (!listing.paused().isEmpty()) {
                text.append("; fix the cause, then: bin/ingest-quarantine storm resume --source S");
            }
            if (!listing.resumed().isEmpty()) {
                text.append("\n\nresumed:\n").append(table(listing.resumed(), true));
            }
            print(out, listing, text.toString());
            return 0;
        }

        private static String table(List<SourcePauses.Pause> pauses, boolean resumed) {
            Table t = resumed ? new Table("SOURCE", "FINGERPRINT", "CLASS/REASON", "SHARE", "PAUSED_AT", "RESUMED_AT",
                    "RESUMED_BY") : new Table("SOURCE", "FINGERPRINT", "CLASS/REASON", "SHARE", "STORM_BEGAN",
                    "PAUSED_AT", "PAUSED_BY");
            for (SourcePauses.Pause p : pauses) {
                String share = p.failed() + "/" + p.deliveries() + " " + p.percent() + "%";
                if (resumed) {
                    t.row(p.source(), p.fingerprint(), p.errorClass() + "/" + p.reasonCode(), share,
                            time(p.pausedAt()), time(p.resumedAt()), p.resumedBy());
                } else {
                    t.row(p.source(), p.fingerprint(), p.errorClass() + "/" + p.reasonCode(), share,
                            time(p.stormBeganAt()), time(p.pausedAt()), p.pausedBy());
                }
            }
            return t.toString();
        }
    }

    /** {@code storm resume --source S}. */
    @Command(name = "resume", mixinStandardHelpOptions = true,
            description = {"Resumes a paused source: every consumer works on its deliveries again within"
                    + " storm.pause-cache-ms (those handed back come again within storm.hand-back-ms), judging it from"
                    + " an empty window; the same fingerprint pauses it again only once it fails"
                    + " storm.failing-percent of a new window. The records quarantined before the pause stay open:"
                    + " drain them once the cause is fixed.",
                    "Exit 2, nothing written, when the source is not paused."})
    static final class Resume extends OperatorCommand {

        @Option(names = "--source", paramLabel = "S", required = true, description = "The paused source.")
        String source;

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            SourcePauses.Pause p = runtime.storms().resume(source, System.getProperty("user.name"));
            print(out, Map.of("resumed", p), "source '" + p.source() + "' resumed (paused at " + time(p.pausedAt())
                    + " for fingerprint " + p.fingerprint() + ", " + p.errorClass() + "/" + p.reasonCode() + "); the records"
                    + " quarantined before the pause stay open: bin/ingest-quarantine records --fingerprint "
                    + p.fingerprint() + " --source " + p.source() + ", then drain them");
            return 0;
        }
    }
}
