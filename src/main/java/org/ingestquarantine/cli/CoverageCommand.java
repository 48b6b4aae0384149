package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.CoverageRow;
import picocli.CommandLine.Command;

/** {@code coverage}: per source, indexed / (indexed + open quarantined + unindexable + erased). */
@Command(name = "coverage", mixinStandardHelpOptions = true,
        description = {"Per source: indexed / (indexed + open quarantined + unindexable + erased). Erased and"
                + " unindexable records stay in the denominator: closing a record without indexing its document never"
                + " raises coverage.",
                "Sources without quarantine rows are listed too. A source whose total is unknown (its connector"
                        + " never counted it) shows only the age of its oldest open record."})
final class CoverageCommand extends OperatorCommand {

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        List<CoverageRow> rows = runtime.service().coverage();
        Table t = new Table("source", "total", "indexed", "open", "unindexable", "erased", "coverage",
                "oldest_open_age");
        for (CoverageRow r : rows) {
            t.row(r.source(), r.total(), r.indexed(), r.openQuarantined(), r.unindexable(), r.erased(),
                    r.coverage() == null ? "-" : String.format(Locale.ROOT, "%.1f%%", r.coverage() * 100.0),
                    age(r.oldestOpenAge()));
        }
        print(out, java.util.Map.of("sources", rows), t.toString());
        return 0;
    }
}
