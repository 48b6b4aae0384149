package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.JournalRow;
import org.ingestquarantine.operator.RecordJournal;
import picocli.CommandLine.Command;

/** {@code attempts RECORD}: the attempt journal's rows of a record's document. */
@Command(name = "attempts", mixinStandardHelpOptions = true,
        description = {"The attempt journal of a record's (source, doc_id): every delivery of its message, oldest"
                + " first, with its delivery count, start, last stage, end and outcome. An attempt never closed is"
                + " running or was a death. Rows closed before prune-journal's age are gone. Reads only."})
final class AttemptsCommand extends RecordCommand {

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        RecordJournal j = runtime.registers().journal(runtime.service().record(ref));
        Table t = new Table("delivery", "delivery_key", "started", "stage", "closed", "outcome");
        for (JournalRow r : j.deliveries()) {
            t.row(r.deliveryCount(), r.deliveryKey(), time(r.startedAt()), r.stage(),
                    r.closedAt() == null ? "- (not closed)" : time(r.closedAt()), r.outcome());
        }
        print(out, j, "record " + j.dlqId() + " (" + j.source() + "/" + j.docId() + "): " + j.deliveries().size()
                + " journal rows" + System.lineSeparator() + t);
        return 0;
    }
}
