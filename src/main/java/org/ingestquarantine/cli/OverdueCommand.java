package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.time.Duration;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.OperatorLabels;
import org.ingestquarantine.operator.OverdueCohort;
import org.ingestquarantine.operator.OverdueReport;
import org.ingestquarantine.operator.OwnerOverdue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code overdue [--older-than 90d]}: open records past the retention age, by owner. */
@Command(name = "overdue", mixinStandardHelpOptions = true,
        description = {"Open records first seen longer ago than the retention age, grouped by owner: they need a"
                + " disposition (drain, dispose).",
                "Owners come from configuration sources.<name>.owner and are written on records that name none."})
final class OverdueCommand extends OperatorCommand {

    @Option(names = "--older-than", paramLabel = "AGE", converter = AgeConverter.class,
            description = "Retention age, e.g. 90d (default: operator.retention-age-days); 0 lists every open record.")
    Duration olderThan;

    @Override
    void validate() {
        if (olderThan != null && olderThan.isNegative()) {
            throw new org.ingestquarantine.operator.BadOperatorInputException("--older-than must be 0 or more, was "
                    + signedAge(olderThan));
        }
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        Duration age = olderThan != null ? olderThan
                : Duration.ofDays(runtime.settings().requiredNumber("operator.retention-age-days"));
        OverdueReport report = runtime.service().overdue(age);
        StringBuilder b = new StringBuilder();
        b.append(report.documents()).append(" open records first seen before ").append(time(report.firstSeenBefore()))
                .append(" (").append(age(age)).append(" ago)").append(System.lineSeparator());
        for (OwnerOverdue o : report.owners()) {
            b.append(System.lineSeparator()).append(OperatorLabels.printable(o.owner())).append(": ").append(o.documents())
                    .append(" records, oldest first seen ").append(time(o.oldestFirstSeen())).append(System.lineSeparator());
            Table t = new Table("  source", "error_class", "fingerprint", "documents", "oldest_first_seen");
            for (OverdueCohort c : o.cohorts()) {
                t.row("  " + c.source(), c.errorClass(), c.errorFingerprint(), c.documents(), time(c.oldestFirstSeen()));
            }
            b.append(t).append(System.lineSeparator());
        }
        print(out, report, b.toString().stripTrailing());
        return 0;
    }
}
