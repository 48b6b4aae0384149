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
        String text = err.toString();
        assertThat(text).contains("Unknown option").contains("'--sourse'").contains("--source")
                .contains("Try 'ingest-quarantine stats --help'")
                .doesNotContain("Usage:");
        assertThat(text.lines().count()).isLessThanOrEqualTo(5);
    }

    @Test
    void anUnknownCommandSuggestsTheNearestOne() {
        assertThat(execute("cohort")).isEqualTo(2);
        assertThat(err.toString()).contains("cohorts").doesNotContain("Usage:");
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
