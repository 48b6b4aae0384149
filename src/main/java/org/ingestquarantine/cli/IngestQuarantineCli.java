package org.ingestquarantine.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine;
import picocli.CommandLine.UnmatchedArgumentException;

/** The launcher's entry point: {@code bin/ingest-quarantine <command> [options]}. */
@Command(name = "ingest-quarantine", mixinStandardHelpOptions = true, versionProvider = BuildVersion.class,
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

    /**
     * @return the launcher's command line, every subcommand registered; an uncaught failure is one line,
     *     exit 1; a bad argument is one line naming it, a hint to {@code --help} (and picocli's "did you
     *     mean" for a mistyped name), exit 2, without the whole usage text
     */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new IngestQuarantineCli());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + OneLineError.describe(e));
            return 1;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println(cmd.getCommandName() + ": " + e.getMessage());
            UnmatchedArgumentException.printSuggestions(e, cmd.getErr());
            cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.");
            return cmd.getCommandSpec().exitCodeOnInvalidInput();
        });
        return cli;
    }
}
