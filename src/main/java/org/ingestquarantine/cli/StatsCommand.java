package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.SourceQuarantineStats;
import org.ingestquarantine.operator.StatsReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code stats [--source S]}: records (attempts) against distinct documents, per source and disposition. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Records (attempts) vs distinct documents per source: first seen, open and closed per disposition.")
final class StatsCommand extends OperatorCommand {

    @Option(names = "--source", description = "Only this source.")
    String source;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        StatsReport report = runtime.service().stats(source);
        Table t = new Table("source", "records", "documents", "open", "parser_fixed", "content_changed",
                "deleted_at_source", "unindexable", "erased", "oldest_first_seen", "newest_first_seen");
        for (SourceQuarantineStats s : report.sources()) {
            row(t, s);
        }
        if (report.sources().size() != 1) {
            row(t, report.total());
        }
        print(out, report, t.toString());
        return 0;
    }

    private static void row(Table t, SourceQuarantineStats s) {
        var d = s.documentsByDisposition();
        t.row(s.source().equals("*") ? "(all)" : s.source(), s.records(), s.documents(), d.get("open"),
                d.get("repaired_parser_fixed"), d.get("repaired_content_changed"), d.get("deleted_at_source"),
                d.get("unindexable"), d.get("erased"), time(s.oldestFirstSeen()), time(s.newestFirstSeen()));
    }
}
