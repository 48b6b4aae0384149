package org.ingestquarantine.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/** The launcher's entry point: {@code bin/ingest-quarantine <command> [options]}. */
@Command(name = "ingest-quarantine", mixinStandardHelpOptions = true,
        description = "Document ingest with classified quarantine.",
        subcommands = {IngestCommand.class, RunCommand.class, StatsCommand.class, CohortsCommand.class,
                CoverageCommand.class, ShowCommand.class, OverdueCommand.class, ReproduceCommand.class,
                DrainCommand.class, DisposeCommand.class, ExpirePayloadsCommand.class, EraseCommand.class,
                PruneJournalCommand.class, ServeCommand.class, SeedDemoCommand.class})
public final class IngestQuarantineCli {

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** @return the launcher's command line, every subcommand registered; an uncaught failure is one line, exit 1 */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new IngestQuarantineCli());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + OneLineError.describe(e));
            return 1;
        });
        return cli;
    }
}
