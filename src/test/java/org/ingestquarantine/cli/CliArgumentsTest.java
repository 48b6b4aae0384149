package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.ingestquarantine.parse.ParserVersion;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The launcher's own answers: {@code --version}, and a bad argument as one short message, exit 2. */
class CliArgumentsTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int execute(String... args) {
        CommandLine cli = IngestQuarantineCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void versionNamesTheBuildAndTheRunningParser() {
        assertThat(execute("--version")).isZero();
        assertThat(out.toString()).startsWith("ingest-quarantine ")
                .contains("parser " + ParserVersion.CURRENT);
    }

    @Test
    void anUnknownOptionIsOneLineAndAHintNotTheWholeUsage() {
        assertThat(execute("stats", "--sourse", "x")).isEqualTo(2);
        assertThat(err.toString()).hasLineCount(1).startsWith("stats: Unknown options: '--sourse', 'x'")
                .contains("; did you mean '--source'?")
                .endsWith("; try 'ingest-quarantine stats --help' for usage" + System.lineSeparator())
                .doesNotContain("Usage:").doesNotContain("Possible solutions");
    }

    @Test
    void anUnknownCommandIsOneLineSuggestingTheNearestOne() {
        assertThat(execute("cohort")).isEqualTo(2);
        assertThat(err.toString()).hasLineCount(1)
                .startsWith("ingest-quarantine: Unmatched argument at index 0: 'cohort'; did you mean 'cohorts'")
                .endsWith("; try 'ingest-quarantine --help' for usage" + System.lineSeparator())
                .doesNotContain("Usage:").doesNotContain("Did you mean:").doesNotContain("Try ");
    }

    /** Every kind of picocli refusal is one line ending with the hint to --help, as the commands' own checks. */
    @Test
    void everyRefusalOfTheCommandLineIsOneLineWithTheHint() {
        String[][] lines = {
            {"bogus", "extra"},                                    // unmatched arguments
            {"erase", "--doc-id", "d"},                            // missing required option
            {"cohorts", "--limit", "many"},                        // invalid value
            {"stats", "--source"},                                 // option without its value
        };
        for (String[] line : lines) {
            err.getBuffer().setLength(0);
            assertThat(execute(line)).as(String.join(" ", line)).isEqualTo(2);
            String text = err.toString();
            assertThat(text).as(String.join(" ", line)).hasLineCount(1).containsPattern("^[a-z-]+: \\S")
                    .containsPattern("; try 'ingest-quarantine( [a-z-]+)? --help' for usage\\R$")
                    .doesNotContain("Usage:");
        }
        err.getBuffer().setLength(0);
        execute("erase", "--doc-id", "d");
        assertThat(err.toString()).startsWith("erase: Missing required option: '--source=<source>'")
                .contains("try 'ingest-quarantine erase --help' for usage");
        err.getBuffer().setLength(0);
        execute("cohorts", "--limit", "many");
        assertThat(err.toString()).startsWith("cohorts: Invalid value for option '--limit': 'many' is not an int");
    }

    @Test
    void aMistypedDataDirIsAnErrorNotAFreshEmptyQuarantine(@TempDir Path parent) {
        Path typo = parent.resolve("dta");
        assertThat(execute("stats", "--data-dir", typo.toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith("stats: no data folder ").contains("dta").hasLineCount(1);
        assertThat(typo).doesNotExist();
    }

    @Test
    void aFolderThatHoldsNoDatabaseIsAnErrorAndGetsNoneCreated(@TempDir Path documents) throws Exception {
        java.nio.file.Files.writeString(documents.resolve("a.pdf"), "%PDF-1.4");
        assertThat(execute("stats", "--data-dir", documents.toString())).isEqualTo(1);
        assertThat(err.toString()).startsWith("stats: no data folder ").contains("postgres/").hasLineCount(1);
        assertThat(documents.resolve("postgres")).doesNotExist();
    }
}
