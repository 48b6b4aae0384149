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
}
