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
                PruneJournalCommand.class, RecordsCommand.class, AttemptsCommand.class, ActionsCommand.class,
                ServeCommand.class, ServeEmbeddingsCommand.class, SeedDemoCommand.class, SourcesCommand.class,
                StormCommand.class, FingerprintsCommand.class,
                CheckRoutesCommand.class})
public final class IngestQuarantineCli {

    /**
     * @param args command line
     */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /**
     * @return the launcher's command line, every subcommand registered; an uncaught failure is one line,
     *     exit 1 (a route file Camel could not read: that line names its file and line, Camel's marked place
     *     follows); a bad argument (unmatched argument, unknown option, missing required option, invalid value)
     *     is one line, {@link #oneLine}, exit 2, without the whole usage text
     */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new IngestQuarantineCli());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandName() + ": " + OneLineError.describe(e));
            OneLineError.details(e).forEach(cmd.getErr()::println);
            return 1;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println(oneLine(e));
            cmd.getErr().flush();
            return cmd.getCommandSpec().exitCodeOnInvalidInput();
        });
        return cli;
    }

    /** Most "did you mean" candidates folded into a refusal. */
    static final int SUGGESTIONS_SHOWN = 3;

    /**
     * @param e picocli's refusal of the command line
     * @return one line as the commands' own checks write theirs: {@code <cmd>: <problem>[; did you mean 'a' or
     *     'b'?]; try '<qualified cmd> --help' for usage}, the suggestion only when picocli has one (a mistyped
     *     subcommand or option), at most {@link #SUGGESTIONS_SHOWN} of them
     */
    static String oneLine(CommandLine.ParameterException e) {
        CommandLine cmd = e.getCommandLine();
        String problem = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        problem = problem.strip().replaceAll("\\s*\\R\\s*", " ").replaceAll("[.:]$", "");
        StringBuilder line = new StringBuilder(cmd.getCommandName()).append(": ").append(problem);
        if (e instanceof UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
            java.util.List<String> suggestions = u.getSuggestions().stream().limit(SUGGESTIONS_SHOWN)
                    .map(x -> "'" + x + "'").toList();
            line.append("; did you mean ").append(String.join(" or ", suggestions)).append('?');
        }
        return line.append("; try '").append(cmd.getCommandSpec().qualifiedName()).append(" --help' for usage")
                .toString();
    }
}
