package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.util.Map;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.operator.SeedDemo;
import org.ingestquarantine.operator.SeedDemoSample;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code seed-demo [--scale K]}: fill an empty quarantine with the seed-scale demo data set. */
@Command(name = "seed-demo", mixinStandardHelpOptions = true,
        description = {"Fills an EMPTY quarantine with seed 003's incident (seed-demo.* properties: 412,000 attempts"
                + " over 61,400 documents in three sources, cohorts of 43%%, 22%%, 9%% and the rest over 30 more"
                + " fingerprints, the largest under a retired parser version; indexed documents so each source's"
                + " coverage is its figure, 92.8%% for demo-contracts, 99.4%% for demo-wiki; owners, with demo-scans"
                + " owned by nobody; payloads and files in a local folder source, <data-dir>/seed-demo, for the oldest"
                + " records of the largest cohort, so reproduce and drain --limit work), for trying the operator"
                + " commands and for bench/operator-bench. Refuses a quarantine that already holds records."})
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
        new SeedDemo(runtime.database().dataSource(), SeedDemoSample.fromSettings(runtime.settings(),
                runtime.payloads(), runtime.dataDir().resolve("seed-demo"))).generate(shape);
        long ms = (System.nanoTime() - started) / 1_000_000;
        print(out, Map.of("documents", shape.documents(), "attempts", shape.attempts(), "fingerprints",
                shape.fingerprints(), "elapsed_ms", ms), "seeded " + shape.attempts() + " attempts over "
                + shape.documents() + " documents, " + shape.fingerprints() + " fingerprints, in " + ms + " ms");
        return 0;
    }
}
