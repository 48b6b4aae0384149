package org.ingestquarantine.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.ingestquarantine.cli.IngestQuarantineCli;

/**
 * One {@code ingest <folder> --json --source bench} in this JVM, through the launcher's own command line, as the
 * pipeline benches time it.
 *
 * @param seconds wall time of the command
 * @param summary its JSON summary
 */
record BenchIngest(double seconds, JsonNode summary) {

    /**
     * @param folder the documents
     * @param dataDir a fresh data folder
     * @return the run
     * @throws IllegalStateException when the command exits other than 0 (its output in the message)
     */
    static BenchIngest run(Path folder, Path dataDir) throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = IngestQuarantineCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        long t0 = System.nanoTime();
        int exit = cli.execute("ingest", folder.toString(), "--data-dir", dataDir.toString(), "--json",
                "--source", "bench");
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (exit != 0) {
            throw new IllegalStateException("ingest exited " + exit + ": " + err + out);
        }
        return new BenchIngest(seconds, new ObjectMapper().readTree(out.toString().trim()));
    }

    /** @return seconds of processing after start-up: the summary's elapsed_ms - startup_ms */
    double processingSeconds() {
        return (summary.get("elapsed_ms").asLong() - summary.get("startup_ms").asLong()) / 1000.0;
    }
}
