package org.ingestquarantine.cli;

import java.io.PrintWriter;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.Reproducer;
import org.ingestquarantine.operator.Reproduction;
import org.ingestquarantine.parse.DocumentParser;
import picocli.CommandLine.Command;

/** {@code reproduce <dlq_id | source/doc_id>}: parse the stored payload again with the running parser. */
@Command(name = "reproduce", mixinStandardHelpOptions = true,
        description = {"Parses the record's STORED payload again with the parser running now, in the sandboxed"
                + " worker pool, after checking its sha256 against the record. Writes nothing.",
                "Prints: same failure (fingerprint F), now parses (N pages, M chars), different failure"
                        + " (fingerprint F2); or, with nothing to parse: nothing to reproduce (the message named no"
                        + " valid document), empty payload (0 bytes at the source),"
                        + " no payload stored, payload expired, payload erased, payload missing. Exit 0 for any of"
                        + " these, 1 when the stored bytes do not match the record's sha256."})
final class ReproduceCommand extends RecordCommand {

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) throws Exception {
        runtime.service().show(ref); // an unknown record is refused before the workers start
        try (DocumentParser parser = runtime.openParser()) {
            Reproduction r = new Reproducer(runtime.service(), runtime.payloads(), parser, runtime.workDir())
                    .reproduce(ref);
            print(out, r, r.document() + ": " + r.summary());
            return r.outcome() == Reproduction.Outcome.PAYLOAD_MISMATCH ? 1 : 0;
        }
    }
}
