package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.quarantine.QuarantineRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code erase --source S --doc-id D}: remove every byte of one document, keep a tombstone. */
@Command(name = "erase", mixinStandardHelpOptions = true,
        description = {"Erases one document: payload and stack trace objects, error message text, the payload hashes"
                + " and source versions of its record and attempt history, and its chunks and row in the index. The"
                + " quarantine row stays as a tombstone with disposition erased (written if the document had none,"
                + " so coverage keeps it in its denominator)."})
final class EraseCommand extends OperatorCommand {

    @Option(names = "--source", required = true, description = "The document's source.")
    String source;

    @Option(names = "--doc-id", required = true, paramLabel = "D", description = "The document's id.")
    String docId;

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        QuarantineRecord tombstone = runtime.dispositions().erase(source, docId);
        Map<String, Object> report = new LinkedHashMap<>();
        report.put("document", source + "/" + docId);
        report.put("tombstone", tombstone.dlqId());
        print(out, report, source + "/" + docId + " erased; tombstone " + tombstone.dlqId()
                + (tombstone.attempts() == 0 ? " (no failure recorded: the tombstone keeps the document in coverage)" : ""));
        return 0;
    }
}
