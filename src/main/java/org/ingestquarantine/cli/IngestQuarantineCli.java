package org.ingestquarantine.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The launcher's entry point: {@code bin/ingest-quarantine <command> [options]}. */
@Command(name = "ingest-quarantine", mixinStandardHelpOptions = true,
        description = "Document ingest with classified quarantine.",
        subcommands = {IngestCommand.class, RunCommand.class})
public final class IngestQuarantineCli {

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        CommandLine cli = new CommandLine(new IngestQuarantineCli());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + OneLineError.describe(e));
            return 1;
        });
        System.exit(cli.execute(args));
    }
}
