package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.ActionEntry;
import org.ingestquarantine.operator.ActionTrail;
import org.ingestquarantine.operator.CohortSelection;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code actions [--limit N]}: the actions trail, newest first. */
@Command(name = "actions", mixinStandardHelpOptions = true,
        description = {"Lists the actions trail, newest first: every dispose and drain, from the commands, the API and"
                + " the page: when, who (--actor, the API's actor), the channel, the exact selection, the records"
                + " selected, the status and the counts, or why it was refused or failed.",
                "At most N (default " + ActionTrail.DEFAULT_ACTIONS + "). Reads only."})
final class ActionsCommand extends OperatorCommand {

    @Option(names = "--limit", paramLabel = "N", description = "Most entries to list.")
    Integer limit;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        List<ActionEntry> entries = runtime.actions().latest(limit);
        Table t = new Table("started", "actor", "channel", "action", "fingerprint", "parser_version", "class", "source",
                "limit", "selected", "status", "outcome");
        for (ActionEntry e : entries) {
            CohortSelection s = e.selection();
            t.row(time(e.startedAt()), e.actor(), e.channel(), e.action(), s.fingerprint(), s.parserVersion(),
                    s.errorClass(), s.source(), s.limit(), e.selected(), e.status(), outcome(e));
        }
        print(out, Map.of("actions", entries), entries.isEmpty() ? "no action recorded yet (dispose and drain record"
                + " theirs)" : t.toString());
        return 0;
    }

    /** @return the counts as {@code outcome=n, ...}, or the error of a refused or failed action */
    private static String outcome(ActionEntry e) {
        if (e.error() != null) {
            return e.error();
        }
        return e.outcomeCounts().entrySet().stream().map(c -> c.getKey() + "=" + c.getValue())
                .collect(Collectors.joining(", "));
    }
}
