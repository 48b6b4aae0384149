package org.ingestquarantine.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.Callable;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.app.ProfileProperties;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.operator.BadOperatorInputException;
import org.ingestquarantine.web.OperatorJson;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * What every operator command shares: {@code --profile}, {@code --data-dir} and {@code --json}; the database
 * alone is used ({@link OperatorRuntime}: the one of the process holding the data folder, or started here), never
 * the pipeline. Exit codes: 0 answered, 1 the database (or
 * the data folder) could not be used, 2 bad arguments or a name that matches nothing; on 1 and 2 one line on
 * stderr says why, and nothing was changed.
 */
abstract class OperatorCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    CommonOptions common;

    @Option(names = "--json", description = "Print one JSON object instead of a table.")
    boolean json;

    @Override
    public final Integer call() {
        String name = spec.name();
        PrintWriter err = spec.commandLine().getErr();
        if (!common.checkProfile(name, err)) {
            return 2;
        }
        try {
            validate();
        } catch (BadOperatorInputException e) {
            // a bad argument, as picocli's own refusals: the same hint to --help, on the same line
            err.println(name + ": " + e.getMessage() + "; try '" + spec.qualifiedName() + " --help' for usage");
            return 2;
        }
        if (common.dataDirIsAFile()) {
            // a data folder that cannot be used (exit 1), whatever the database: the payloads are kept in it too
            err.println(name + ": no data folder " + common.dataDir.toAbsolutePath() + " (it is a file, not a folder; "
                    + (createsDataDir() ? "pass a folder, or a path where nothing is yet)"
                            : "pass the --data-dir of an ingest, run or seed-demo)"));
            return 1;
        }
        if (!createsDataDir() && "embedded".equals(ProfileProperties.load(common.profile, Map.of()).required("db.mode"))) {
            if (!java.nio.file.Files.isDirectory(common.dataDir)) {
                err.println(name + ": no data folder " + common.dataDir.toAbsolutePath()
                        + " (nothing has run there; pass the --data-dir of an ingest, run or seed-demo)");
                return 1;
            }
            if (!java.nio.file.Files.isDirectory(EmbeddedPostgresService.folderIn(common.dataDir))) {
                // e.g. a documents folder given by mistake: a database created there would be walked as documents
                err.println(name + ": no data folder " + common.dataDir.toAbsolutePath() + " (it holds no "
                        + EmbeddedPostgresService.FOLDER_IN_DATA_DIR + "/ database folder: not the data folder of an"
                        + " ingest, run or seed-demo; pass theirs)");
                return 1;
            }
        }
        try (OperatorRuntime runtime = OperatorRuntime.open(common.profile, common.dataDir, Map.of())) {
            return execute(runtime, spec.commandLine().getOut());
        } catch (BadOperatorInputException e) {
            err.println(name + ": " + e.getMessage());
            return 2;
        } catch (Exception e) {
            err.println(name + ": " + describe(e));
            return 1;
        }
    }

    /**
     * @return whether the command may start on a data folder that does not exist yet (creating an empty
     *     quarantine); false by default, so a mistyped {@code --data-dir} is an error (exit 1) rather than
     *     a fresh empty database that answers every question with nothing
     */
    boolean createsDataDir() {
        return false;
    }

    /**
     * Checks the arguments before the database is started.
     *
     * @throws BadOperatorInputException if they cannot be right
     */
    void validate() {
    }

    /**
     * @param runtime the open database and payload store
     * @param out where the answer goes
     * @return the exit code
     * @throws Exception anything; reported as one line, exit 1
     */
    abstract int execute(OperatorRuntime runtime, PrintWriter out) throws Exception;

    /** Prints the report as JSON with {@code --json}, else the text. */
    void print(PrintWriter out, Object report, String text) {
        out.println(json ? OperatorJson.write(report) : text);
        out.flush();
    }

    private static String describe(Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DatabaseAccessException || t instanceof IllegalStateException) {
                return t.getMessage().lines().findFirst().orElse(t.getMessage());
            }
        }
        return OneLineError.describe(e);
    }

    /** @return the instant to the second, or {@code -} */
    static String time(Instant instant) {
        return instant == null ? "-" : instant.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    /**
     * Refuses a retention age of 0 or less (a destructive command's {@code --older-than}) before the database
     * starts.
     *
     * @param olderThan the age given, or null (the configured default: not checked here)
     * @param consequence what the age would do, completing "{@code <age> would ...}"
     * @throws BadOperatorInputException if the age is 0 or negative
     */
    static void requirePositiveAge(Duration olderThan, String consequence) {
        if (olderThan != null && (olderThan.isZero() || olderThan.isNegative())) {
            throw new BadOperatorInputException("--older-than must be more than 0, was " + signedAge(olderThan)
                    + ": " + signedAge(olderThan) + " would " + consequence);
        }
    }

    /** @return an age argument as {@link #age} writes it, with a minus sign when negative ({@code -1d 0h}) */
    static String signedAge(Duration d) {
        return d.isNegative() ? "-" + age(d.negated()) : age(d);
    }

    /**
     * @param d a duration, may be {@code null}
     * @return it as {@code 3d 4h}, {@code 5h 2m}, {@code 1m 30s}, {@code 40s}, or below 10 s to a tenth
     *     ({@code 2.5s}, {@code 0.4s}, {@code 3s}), rounded half up at the last unit shown (59.5 s is
     *     {@code 1m 0s}, 23 h 30 m is {@code 1d 0h}); {@code 0s} for zero or negative; {@code -} for null
     */
    static String age(Duration d) {
        if (d == null) {
            return "-";
        }
        if (d.isNegative() || d.isZero()) {
            return "0s";
        }
        long tenths = roundHalfUp(d, Duration.ofMillis(100));
        if (tenths < 100) {
            return tenths % 10 == 0 ? tenths / 10 + "s" : tenths / 10 + "." + tenths % 10 + "s";
        }
        long seconds = roundHalfUp(d, Duration.ofSeconds(1));
        if (seconds < 3600) {
            return seconds < 60 ? seconds + "s" : seconds / 60 + "m " + seconds % 60 + "s";
        }
        long minutes = roundHalfUp(d, Duration.ofMinutes(1));
        if (minutes < 24 * 60) {
            return minutes / 60 + "h " + minutes % 60 + "m";
        }
        long hours = roundHalfUp(d, Duration.ofHours(1));
        return hours / 24 + "d " + hours % 24 + "h";
    }

    /** @return how many {@code unit}s {@code d} (not negative) is, rounded half up */
    private static long roundHalfUp(Duration d, Duration unit) {
        long whole = d.dividedBy(unit);
        return d.minus(unit.multipliedBy(whole)).multipliedBy(2).compareTo(unit) >= 0 ? whole + 1 : whole;
    }
}
