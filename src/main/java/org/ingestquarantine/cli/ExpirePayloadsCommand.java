package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code expire-payloads [--older-than 90d]}: delete payload objects, keep the rows. */
@Command(name = "expire-payloads", mixinStandardHelpOptions = true,
        description = {"Deletes the payload objects of records last seen longer ago than the age and keeps every row"
                + " (sha256 and size stay as evidence). A later drain goes back to the source; reproduce says"
                + " \"payload expired\"."})
final class ExpirePayloadsCommand extends OperatorCommand {

    @Option(names = "--older-than", paramLabel = "AGE", converter = AgeConverter.class,
            description = "Age of last_seen_at, more than 0, e.g. 90d (default: operator.retention-age-days);"
                    + " 0 is refused: it would expire every payload, even those of records seen a moment ago.")
    Duration olderThan;

    /** Refuses an age of 0 or less before the database starts: it would expire every payload. */
    @Override
    void validate() {
        requirePositiveAge(olderThan, "expire every payload, even those of records seen a moment ago");
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) throws Exception {
        Duration age = olderThan != null ? olderThan
                : Duration.ofDays(runtime.settings().requiredNumber("operator.retention-age-days"));
        int expired = runtime.dispositions().expirePayloads(age);
        print(out, Map.of("expired", expired, "older_than", age, "older_than_seconds", age.toSeconds()), expired + " payloads expired (records last seen over "
                + age(age) + " ago); the records stay");
        return 0;
    }
}
