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
     * The checks of {@code ingest} and {@code run}, whose bad options are bad arguments (exit code 2).
     *
     * @param command the command's name, for the message
     * @param err where the one-line error goes
     * @return whether the options are usable; if not, one line has been printed (exit code 2)
     */
    boolean check(String command, java.io.PrintWriter err) {
        if (!checkProfile(command, err)) {
            return false;
        }
        if (dataDirIsAFile()) {
            err.println(command + ": --data-dir " + dataDir + " is a file, not a folder");
            return false;
        }
        return true;
    }

    /**
     * @param command the command's name, for the message
     * @param err where the one-line error goes
     * @return whether {@code --profile} names a known profile; if not, one line has been printed
     */
    boolean checkProfile(String command, java.io.PrintWriter err) {
        if (!org.ingestquarantine.app.PipelineApp.PROFILES.contains(profile)) {
            err.println(command + ": unknown profile '" + profile + "'; use one of "
                    + org.ingestquarantine.app.PipelineApp.PROFILES);
            return false;
        }
        return true;
    }

    /** @return whether {@code --data-dir} names something that exists and is not a folder (a regular file) */
    boolean dataDirIsAFile() {
        return java.nio.file.Files.exists(dataDir) && !java.nio.file.Files.isDirectory(dataDir);
    }
}
