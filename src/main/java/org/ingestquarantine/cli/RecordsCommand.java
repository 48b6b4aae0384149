package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.FingerprintRecord;
import org.ingestquarantine.operator.FingerprintRecords;
import org.ingestquarantine.operator.BadOperatorInputException;
import org.ingestquarantine.operator.OperatorField;
import org.ingestquarantine.operator.OperatorLabels;
import org.ingestquarantine.operator.OperatorRegisters;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code records --fingerprint F [--source S] [--limit N]}: the records of one fingerprint. */
@Command(name = "records", mixinStandardHelpOptions = true,
        description = {"Lists the records of one fingerprint, whatever their disposition, oldest first seen first:"
                + " record id, source, doc_id, class, reason, attempts, first and last seen, disposition, owner.",
                "At most N (default " + OperatorRegisters.DEFAULT_RECORD_LIMIT + "); the last line says how many were"
                        + " cut. Reads only."})
final class RecordsCommand extends OperatorCommand {

    @Option(names = "--fingerprint", required = true, paramLabel = "F", description = "The cohort's error fingerprint.")
    String fingerprint;

    @Option(names = "--source", paramLabel = "S", description = "Only records of this source.")
    String source;

    @Option(names = "--limit", paramLabel = "N", description = "Most records to list.")
    Integer limit;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        runtime.service().requireKnownSource(source);
        FingerprintRecords r = runtime.registers().fingerprintRecords(fingerprint, source, limit);
        if (r.total() == 0) {
            throw new BadOperatorInputException(OperatorField.FINGERPRINT, " " + OperatorLabels.printable(fingerprint)
                    + ": no record" + (source == null ? "" : " of source " + OperatorLabels.printable(source))
                    + " has this fingerprint (bin/ingest-quarantine cohorts lists them)");
        }
        Table t = new Table("record", "source", "doc_id", "class", "reason", "attempts", "first_seen", "last_seen",
                "disposition", "owner");
        for (FingerprintRecord x : r.records()) {
            t.row(x.dlqId(), x.source(), x.docId(), x.errorClass(), x.reasonCode(), x.attempts(), time(x.firstSeenAt()),
                    time(x.lastSeenAt()), x.disposition(), x.owner());
        }
        print(out, r, t + System.lineSeparator() + r.total() + (r.total() == 1 ? " record" : " records") + " of fingerprint "
                + OperatorLabels.printable(r.errorFingerprint()) + (r.cut() == 0 ? "" : ", " + r.cut()
                + " not shown (cut by --limit " + r.records().size() + ")"));
        return 0;
    }
}
