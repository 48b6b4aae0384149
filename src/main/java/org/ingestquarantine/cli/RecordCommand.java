package org.ingestquarantine.cli;

import org.ingestquarantine.operator.RecordRef;
import picocli.CommandLine.Parameters;

/** An operator command about one record, named by its first parameter (show, reproduce, attempts). */
abstract class RecordCommand extends OperatorCommand {

    @Parameters(index = "0", paramLabel = "RECORD", description = "A dlq_id, or source/doc_id as in the logs.")
    String ref;

    /** Refuses a malformed reference before the database starts. */
    @Override
    void validate() {
        RecordRef.parse(ref);
    }
}
