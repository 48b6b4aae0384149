package org.ingestquarantine.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import org.ingestquarantine.app.PipelineApp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code run}: the production consumer. Consumes from the profile's broker until stopped; SIGTERM
 * finishes the in-flight documents, acknowledges nothing unfinished, and exits 0.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Consume from the profile's broker until stopped (SIGTERM finishes in-flight documents).")
final class RunCommand implements Callable<Integer> {

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() throws Exception {
        PipelineApp.runUntilStopped(common.profile, common.dataDir, Map.of());
        return 0;
    }
}
