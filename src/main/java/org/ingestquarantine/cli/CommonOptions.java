package org.ingestquarantine.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every command takes. */
final class CommonOptions {

    @Option(names = "--profile", defaultValue = "embedded",
            description = "Broker profile: embedded (default), sqs, rabbitmq or kafka.")
    String profile;

    @Option(names = "--data-dir", defaultValue = "data",
            description = "Folder for the embedded database, payloads and work files (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    /**
     * @param command the command's name, for the message
     * @param err where the one-line error goes
     * @return whether the options are usable; if not, one line has been printed (exit code 2)
     */
    boolean check(String command, java.io.PrintWriter err) {
        if (!org.ingestquarantine.app.PipelineApp.PROFILES.contains(profile)) {
            err.println(command + ": unknown profile '" + profile + "'; use one of "
                    + org.ingestquarantine.app.PipelineApp.PROFILES);
            return false;
        }
        if (java.nio.file.Files.exists(dataDir) && !java.nio.file.Files.isDirectory(dataDir)) {
            err.println(command + ": --data-dir " + dataDir + " is a file, not a folder");
            return false;
        }
        return true;
    }
}
