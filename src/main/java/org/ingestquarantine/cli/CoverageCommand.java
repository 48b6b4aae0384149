package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.List;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.CoverageRow;
import picocli.CommandLine.Command;

/**
 * {@code coverage}: per source, indexed over the source's documents ({@link org.ingestquarantine.metrics.SkippedCoverage#ratio}),
 * with how its total was obtained and how long ago; {@code documents} is the denominator, the coverage printed as
 * the API's {@code coverage_percent}, which the page shows.
 */
@Command(name = "coverage", mixinStandardHelpOptions = true,
        description = {"Per source: coverage = indexed / documents. documents is the source's total (total_by: listed,"
                + " stated or ingest; total_age: how long ago) less the documents skipped by policy (or with them,"
                + " coverage.skipped-documents = missing), or indexed + open quarantined + unindexable + erased where"
                + " more were seen. Erased and unindexable records stay in the denominator: closing a record without"
                + " indexing its document never raises coverage; unseen are documents of the total no message has"
                + " brought.",
                "Sources without quarantine rows are listed too. A source whose total is unknown (never listed,"
                        + " stated or ingested) shows only the age of its oldest open record. Percentages to a"
                        + " tenth, rounded down, as the page prints them."})
final class CoverageCommand extends OperatorCommand {

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        List<CoverageRow> rows = runtime.service().coverage();
        Table t = new Table("source", "total", "total_by", "total_age", "indexed", "open", "unindexable", "erased",
                "skipped", "unseen", "documents", "coverage", "oldest_open_age");
        for (CoverageRow r : rows) {
            t.row(r.source(), r.total(), r.totalBy() == null ? "-" : r.totalBy(), age(r.totalAge()), r.indexed(),
                    r.openQuarantined(), r.unindexable(), r.erased(), r.skipped(), r.unseen(),
                    r.documents(), r.coveragePercent() == null ? "-" : r.coveragePercent(), age(r.oldestOpenAge()));
        }
        print(out, java.util.Map.of("sources", rows, "formula", runtime.service().coverageFormula()), t.toString());
        return 0;
    }
}
