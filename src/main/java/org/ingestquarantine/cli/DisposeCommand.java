package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.ActionEntry;
import org.ingestquarantine.operator.CohortSelection;
import org.ingestquarantine.operator.OperatorField;
import org.ingestquarantine.operator.OperatorLabels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code dispose --fingerprint F [--parser-version V] [--class C] [--source S] --unindexable --reason CODE --owner TEAM
 * [--actor NAME] [--dry-run]}.
 */
@Command(name = "dispose", mixinStandardHelpOptions = true,
        description = {"Moves every open record of a cohort to the unindexable register with a reason code and an"
                + " owner. They stay in coverage's denominator: coverage does not change by reclassifying.",
                "An owner is one source's team: a cohort spanning several sources is refused (exit 2, naming them)"
                        + " unless --source names one.",
                "--dry-run prints the records it would move per source and changes nothing.",
                "The actions trail records the dispose (actions lists it): who (--actor), the selection, the count.",
                "Exit 2, nothing changed, when no open record has the fingerprint."})
final class DisposeCommand extends OperatorCommand {

    @Option(names = "--fingerprint", required = true, paramLabel = "F", description = "The cohort's error fingerprint.")
    String fingerprint;

    @Option(names = "--parser-version", paramLabel = "V", description = "Only records of this parser version.")
    String parserVersion;

    @Option(names = "--class", paramLabel = "C", description = "Only records of this error class.")
    String errorClass;

    @Option(names = "--source", paramLabel = "S", description = "Only records of this source.")
    String source;

    @Mixin
    ActorOption actor;

    @Option(names = "--dry-run", description = "Print what would be moved, per source; change nothing.")
    boolean dryRun;

    @Option(names = "--unindexable", required = true, description = "The disposition (the only one an operator sets).")
    boolean unindexable;

    @Option(names = "--reason", required = true, paramLabel = "CODE", description = "Why, e.g. vendor_format.")
    String reason;

    @Option(names = "--owner", required = true, paramLabel = "TEAM", description = "Who owns the decision.")
    String owner;

    @Override
    void validate() {
        OperatorLabels.require(reason, OperatorField.REASON);
        OperatorLabels.require(owner, OperatorField.OWNER);
        actor.actor();
        selection().check();
    }

    private CohortSelection selection() {
        return new CohortSelection(fingerprint, parserVersion, errorClass, source, null);
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        runtime.service().requireKnownSource(source);
        if (dryRun) {
            return dryRun(runtime, out);
        }
        ActionEntry action = runtime.actions().dispose(actor.actor(), selection(), reason, owner, null);
        int moved = action.selected();
        print(out, Map.of("unindexable", moved, "fingerprint", fingerprint, "reason_code", reason, "owner", owner,
                        "action_id", action.actionId()),
                moved + " records of fingerprint " + OperatorLabels.printable(fingerprint) + " moved to unindexable ("
                        + reason + ", owner " + owner + ")"); // both printable: checked by disposeUnindexable
        return 0;
    }

    private int dryRun(OperatorRuntime runtime, PrintWriter out) {
        SortedMap<String, Long> bySource = runtime.dispositions().disposable(selection());
        long records = bySource.values().stream().mapToLong(Long::longValue).sum();
        boolean refused = source == null && bySource.size() > 1;
        Table table = new Table("source", "records");
        bySource.forEach(table::row);
        String text = "dry run: nothing changed; dispose would move " + (refused ? "nothing (the cohort spans "
                + bySource.size() + " sources and --owner names one team: add --source S)" : records + " open records"
                + " of fingerprint " + OperatorLabels.printable(fingerprint) + " to unindexable (" + reason + ", owner "
                + owner + ")") + System.lineSeparator() + table;
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("dry_run", true);
        report.put("fingerprint", fingerprint);
        report.put("parser_version", parserVersion);
        report.put("class", errorClass);
        report.put("source", source);
        report.put("records_by_source", bySource);
        report.put("records", records);
        report.put("refused", refused);
        print(out, report, text);
        return 0;
    }
}
