package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.CohortReport;
import org.ingestquarantine.operator.CohortRow;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cohorts [--source S] [--class C] [--limit N]}: open records by parser version, class and fingerprint. */
@Command(name = "cohorts", mixinStandardHelpOptions = true,
        description = {"Open records grouped by (parser_version, error_class, error_fingerprint), most documents first.",
                "Every cohort is listed unless --limit is given, and then the output says how many were cut.",
                "Cohorts marked * were recorded by another parser version than the one running now:"
                        + " a drain is most likely to repair those.",
                "Cohorts marked ~ hold records whose fingerprint an older algorithm computed (fp_version is the oldest;"
                        + " - = before versioning): 'fingerprints remap' recomputes them."})
final class CohortsCommand extends OperatorCommand {

    @Option(names = "--source", description = "Only this source.")
    String source;

    @Option(names = "--class", paramLabel = "CLASS", description = "Only this error class, e.g. ambiguous_parse.")
    String errorClass;

    @Option(names = "--limit", paramLabel = "N", description = "Show only the N largest cohorts.")
    Integer limit;

    @Override
    void validate() {
        if (limit != null && limit < 1) {
            throw new org.ingestquarantine.operator.BadOperatorInputException("--limit must be at least 1, was " + limit);
        }
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        CohortReport report = runtime.service().cohorts(source, errorClass, limit);
        Table t = new Table("", "parser_version", "error_class", "fingerprint", "fp_version", "documents", "attempts",
                "since", "last_seen", "example");
        for (CohortRow c : report.cohorts()) {
            t.row((c.staleParser() ? "*" : "") + (c.olderFingerprint() ? "~" : ""), c.parserVersion(), c.errorClass(),
                    c.errorFingerprint(), c.fingerprintVersion() == null ? "-" : c.fingerprintVersion(), c.documents(),
                    c.attempts(), time(c.since()), time(c.lastSeen()),
                    c.exampleErrorType() + (c.exampleMessage() == null ? "" : ": " + c.exampleMessage()));
        }
        String text = "running parser " + report.runningParserVersion() + "; * = recorded by another parser version"
                + System.lineSeparator() + "fingerprint algorithm " + report.runningFingerprintVersion()
                + "; ~ = holds records fingerprinted by an older one (- = before versioning): 'fingerprints remap'"
                + " recomputes them" + System.lineSeparator() + t + System.lineSeparator() + report.totalCohorts()
                + " cohorts"
                + (report.cut() > 0 ? ", " + report.cut() + " not shown (cut by --limit " + limit + ")" : "");
        print(out, report, text);
        return 0;
    }
}
