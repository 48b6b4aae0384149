package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.OperatorLabels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code dispose --fingerprint F [--parser-version V] --unindexable --reason CODE --owner TEAM}. */
@Command(name = "dispose", mixinStandardHelpOptions = true,
        description = {"Moves every open record of a cohort to the unindexable register with a reason code and an"
                + " owner. They stay in coverage's denominator: coverage does not change by reclassifying.",
                "Exit 2, nothing changed, when no open record has the fingerprint."})
final class DisposeCommand extends OperatorCommand {

    @Option(names = "--fingerprint", required = true, paramLabel = "F", description = "The cohort's error fingerprint.")
    String fingerprint;

    @Option(names = "--parser-version", paramLabel = "V", description = "Only records of this parser version.")
    String parserVersion;

    @Option(names = "--unindexable", required = true, description = "The disposition (the only one an operator sets).")
    boolean unindexable;

    @Option(names = "--reason", required = true, paramLabel = "CODE", description = "Why, e.g. vendor_format.")
    String reason;

    @Option(names = "--owner", required = true, paramLabel = "TEAM", description = "Who owns the decision.")
    String owner;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        int moved = runtime.dispositions().disposeUnindexable(fingerprint, parserVersion, reason, owner);
        print(out, Map.of("unindexable", moved, "fingerprint", fingerprint, "reason_code", reason, "owner", owner),
                moved + " records of fingerprint " + OperatorLabels.printable(fingerprint) + " moved to unindexable ("
                        + reason + ", owner " + owner + ")"); // both printable: checked by disposeUnindexable
        return 0;
    }
}
