package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code prune-journal [--older-than 30d]}: delete closed attempt-journal rows past an age. */
@Command(name = "prune-journal", mixinStandardHelpOptions = true,
        description = {"Deletes attempt-journal rows closed longer ago than the age, so the journal does not grow"
                + " without bound. Open attempts (possible deaths) are never pruned. Keep the age far above any"
                + " redelivery window: for Kafka the journal is the delivery counter."})
final class PruneJournalCommand extends OperatorCommand {

    @Option(names = "--older-than", paramLabel = "AGE", converter = AgeConverter.class,
            description = "Age of closed_at, more than 0, e.g. 30d (default: operator.journal-retention-days);"
                    + " 0 is refused: it would delete every closed row, even those closed a moment ago.")
    Duration olderThan;

    /** Refuses an age of 0 or less before the database starts: it would delete every closed journal row. */
    @Override
    void validate() {
        requirePositiveAge(olderThan, "delete every closed journal row, even those closed a moment ago (for Kafka"
                + " the journal counts deliveries)");
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        Duration age = olderThan != null ? olderThan
                : Duration.ofDays(runtime.settings().requiredNumber("operator.journal-retention-days"));
        int pruned = runtime.dispositions().pruneJournal(age);
        print(out, Map.of("pruned", pruned, "older_than", age, "older_than_seconds", age.toSeconds()), pruned + " closed journal rows older than "
                + age(age) + " deleted");
        return 0;
    }
}
