package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.stream.Collectors;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.RemapReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code fingerprints remap [--dry-run]}: open records whose fingerprint an older algorithm computed, recomputed by
 * the running one and moved to its cohorts ({@link org.ingestquarantine.operator.FingerprintRemap}). Exit codes as
 * every operator command's ({@link OperatorCommand}).
 */
@Command(name = "fingerprints", mixinStandardHelpOptions = true,
        description = "Error fingerprints of an older algorithm (cohorts marks their cohorts ~).",
        subcommands = {FingerprintsCommand.Remap.class})
final class FingerprintsCommand {

    /** {@code fingerprints remap [--dry-run]}. */
    @Command(name = "remap", mixinStandardHelpOptions = true, description = {
            "Moves every OPEN record of an older fingerprint algorithm (or written before versioning) to the running",
            "algorithm's cohort: its fingerprint recomputed from its stored stack trace (root cause type and frames)",
            "and reason code; prints old -> new with the records moved. A record whose fingerprint the running",
            "algorithm gives already gets only its version written. A record whose evidence cannot be recomputed",
            "(no stack trace, its object missing, a trace that does not give the stored fingerprint, ...) is left as",
            "it is, counted by why. Closed records and the attempt history keep their fingerprints."})
    static final class Remap extends OperatorCommand {

        @Option(names = "--dry-run", description = "Print what a remap would move now; write nothing.")
        boolean dryRun;

        @Override
        int execute(OperatorRuntime runtime, PrintWriter out) {
            RemapReport r = runtime.fingerprintRemap().remap(dryRun);
            Table t = new Table("error_class", "from", "", "to", "records");
            r.mappings().forEach(m -> t.row(m.errorClass(), m.from(), "->", m.to(), m.records()));
            String n = System.lineSeparator();
            String text = "fingerprint algorithm " + r.runningVersion() + ": " + r.selected() + " open records of an"
                    + " older one or before versioning" + n + (r.mappings().isEmpty() ? "" : t + n)
                    + r.moved() + (dryRun ? " would move" : " moved") + " to the running algorithm's cohorts, "
                    + r.alreadyCurrent() + " already of it (" + (dryRun ? "version would be written" : "version written")
                    + "), " + r.left() + " left as they are"
                    + (r.leftBy().isEmpty() ? "" : " (" + r.leftBy().entrySet().stream()
                            .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")) + ")")
                    + (r.changedMeanwhile() == 0 ? "" : ", " + r.changedMeanwhile() + " changed meanwhile by a failure,"
                            + " drain or dispose (left to it)")
                    + (dryRun ? n + "dry run: nothing changed" : "");
            print(out, r, text);
            return 0;
        }
    }
}
