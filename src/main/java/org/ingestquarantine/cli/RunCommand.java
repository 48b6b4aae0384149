package org.ingestquarantine.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.app.PipelineApp;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code run}: the production consumer. Consumes from the profile's broker until stopped; SIGTERM
 * finishes the in-flight documents, acknowledges nothing unfinished, and exits 0. While it consumes it serves
 * the operator API and page as {@code serve} does, when {@code operator.api-token} is set, and lists its sources
 * every {@code sources.count-interval-ms} (when more than 0).
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Consume from the profile's broker until stopped (SIGTERM finishes in-flight documents).",
                "With operator.api-token set it also serves the operator page and API on operator.api-host:"
                        + "operator.api-port, as 'serve' does."})
final class RunCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Override
    public Integer call() throws Exception {
        if (!common.check("run", spec.commandLine().getErr())) {
            return 2;
        }
        PipelineApp.runUntilStopped(common.profile, common.dataDir, Map.of(AppConfiguration.SERVE_OPERATOR_API, "true",
                AppConfiguration.LIST_SOURCES, "true"));
        return 0;
    }
}
