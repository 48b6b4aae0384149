package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.SeedDemo;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code seed-demo [--scale K]}: fill an empty quarantine with the seed-scale demo data set. */
@Command(name = "seed-demo", mixinStandardHelpOptions = true,
        description = {"Fills an EMPTY quarantine with the seed-scale demo data set (seed-demo.* properties:"
                + " 412,000 attempts over 61,400 documents in three sources, cohorts of 43%%, 22%%, 9%% and the rest"
                + " over 30 more fingerprints, three parser versions), for trying the operator commands and for"
                + " bench/operator-bench. Refuses a quarantine that already holds records."})
final class SeedDemoCommand extends OperatorCommand {

    @Option(names = "--scale", defaultValue = "1", paramLabel = "K",
            description = "Multiply documents and attempts by K (default: ${DEFAULT-VALUE}).")
    int scale;

    @Override
    boolean createsDataDir() {
        return true;
    }

    @Override
    void validate() {
        if (scale < 1) {
            throw new org.ingestquarantine.operator.BadOperatorInputException("--scale must be at least 1, was " + scale);
        }
    }

    @Override
    int execute(OperatorRuntime runtime, PrintWriter out) {
        SeedDemo.Shape shape = SeedDemo.Shape.fromSettings(runtime.settings(), scale);
        long started = System.nanoTime();
        new SeedDemo(runtime.database().dataSource()).generate(shape);
        long ms = (System.nanoTime() - started) / 1_000_000;
        print(out, Map.of("documents", shape.documents(), "attempts", shape.attempts(), "fingerprints",
                shape.fingerprints(), "elapsed_ms", ms), "seeded " + shape.attempts() + " attempts over "
                + shape.documents() + " documents, " + shape.fingerprints() + " fingerprints, in " + ms + " ms");
        return 0;
    }
}
