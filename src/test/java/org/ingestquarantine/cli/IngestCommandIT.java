package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.ingestquarantine.pipeline.RecordKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Ensures the README's first command does what it says on the committed sample set: every file gets an
 * outcome, the JSON summary has the documented keys, a second run adds no rows, and bad arguments get
 * a one-line error and exit code 2.
 */
class IngestCommandIT {

    @TempDir
    Path data;

    @Test
    void shouldSummariseTheSampleSetAndNotDuplicateOnASecondRun() throws Exception {
        JsonNode first = run("ingest", "samples/pdfs", "--json", "--data-dir", data.toString());
        assertThat(first.get("documents").asInt()).isEqualTo(13);
        assertThat(first.get("indexed").asInt()).isEqualTo(6);
        assertThat(first.get("quarantined").get("permanent_input").asInt()).isEqualTo(6);
        assertThat(first.get("quarantined").get("ambiguous_parse").asInt()).isEqualTo(1);
        assertThat(first.get("fingerprints").asInt()).isPositive();
        assertThat(first.get("coverage").asDouble()).isEqualTo(6.0 / 13.0);
        assertThat(first.get("elapsed_ms").asLong()).isPositive();
        assertThat(first.get("unsettled")).isEmpty();

        JsonNode second = run("ingest", "samples/pdfs", "--json", "--data-dir", data.toString());
        assertThat(second.get("indexed").asInt()).isEqualTo(6);
        assertThat(second.get("unchanged").asInt()).isEqualTo(6);
        assertThat(second.get("quarantined")).isEqualTo(first.get("quarantined"));
        assertThat(second.get("coverage").asDouble()).isEqualTo(6.0 / 13.0);
    }

    /**
     * File names are identities from outside: one with a newline and ANSI/OSC escapes is quarantined as an
     * invalid message, counted in the summary (not a crash of the summary, exit 1), and never printed raw.
     */
    @Test
    void shouldCountAFileWhoseNameIsNotAValidIdentityAndNeverPrintItRaw(@TempDir Path folder) throws Exception {
        java.nio.file.Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"), folder.resolve("good.pdf"));
        java.nio.file.Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"),
                folder.resolve("new\nline\u001b[31mRED\u001b]0;TITLE\u0007.pdf"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err));
        int code = cli.execute("ingest", folder.toString(), "--json", "--data-dir", data.toString());
        assertThat(err.toString()).doesNotContain("\u001b").doesNotContain("\u0007");
        assertThat(code).as("exit code; stderr: %s", err).isZero();
        JsonNode summary = new ObjectMapper().readTree(out.toString());
        assertThat(summary.get("documents").asInt()).isEqualTo(2);
        assertThat(summary.get("indexed").asInt()).isEqualTo(1);
        assertThat(summary.get("reasons").get("permanent_input/invalid_message").asInt()).isEqualTo(1);
    }

    /**
     * Issue 21: two files whose names are not valid UTF-8 (Latin-1 bytes) were one doc_id (both decoded to U+FFFD):
     * one file silently missing at 100% coverage. Each is its own document now.
     */
    @Test
    void shouldIndexTwoFilesWhoseNamesAreNotUtf8AsTwoDocuments(@TempDir Path folder) throws Exception {
        for (String raw : List.of("caf%E9.pdf", "caf%E8.pdf")) {
            java.nio.file.Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"),
                    Path.of(java.net.URI.create(folder.toUri() + raw)));
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute("ingest", folder.toString(), "--json", "--data-dir", data.toString());
        assertThat(code).as("exit code; stderr: %s", err).isZero();
        JsonNode summary = new ObjectMapper().readTree(out.toString());
        assertThat(summary.get("documents").asInt()).isEqualTo(2);
        assertThat(summary.get("indexed").asInt()).as("summary %s", summary).isEqualTo(2);
        JsonNode coverage = run("coverage", "--json", "--data-dir", data.toString()).at("/sources/0");
        assertThat(coverage.get("indexed").asLong()).as("documents indexed: %s", coverage).isEqualTo(2);
    }

    /**
     * Issue 8: a file whose name is not a valid identity stays its source's document, so the source's coverage is
     * honest (1 indexed of 2, not 100%): its record is open under the real source with the reserved doc_id (a
     * digest of the name, never the raw name), the run's summary finds it, and a drain leaves it alone and says why.
     * The digest is stable: a second ingest of the same folder adds an attempt to the same record (not a second
     * record, which made coverage 33% and stats count 2 documents), and reproduce says there is nothing to reproduce.
     */
    @Test
    void shouldKeepAFileWhoseNameIsNotAValidIdentityUnderItsSourceSoCoverageCountsIt(@TempDir Path temp) throws Exception {
        Path folder = java.nio.file.Files.createDirectories(temp.resolve("names"));
        java.nio.file.Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"), folder.resolve("good.pdf"));
        java.nio.file.Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"), folder.resolve("bad\nname.pdf"));

        JsonNode summary = run("ingest", folder.toString(), "--json", "--data-dir", data.toString());
        assertThat(summary.get("documents").asInt()).isEqualTo(2);
        assertThat(summary.get("indexed").asInt()).isEqualTo(1);
        assertThat(summary.get("reasons").get("permanent_input/invalid_message").asInt()).isEqualTo(1);
        assertThat(summary.get("coverage").asDouble()).isEqualTo(0.5);

        JsonNode again = run("ingest", folder.toString(), "--json", "--data-dir", data.toString());
        assertThat(again.get("documents").asInt()).isEqualTo(2);
        assertThat(again.get("reasons").get("permanent_input/invalid_message").asInt()).isEqualTo(1);
        assertThat(again.get("coverage").asDouble()).as("second run: %s", again).isEqualTo(0.5);
        JsonNode stats = run("stats", "--source", "names", "--json", "--data-dir", data.toString());
        assertThat(stats.at("/sources/0/records").asLong()).as("attempts; stats: %s", stats).isEqualTo(2);
        assertThat(stats.at("/sources/0/documents").asLong()).as("stats: %s", stats).isEqualTo(1);

        JsonNode coverage = run("coverage", "--json", "--data-dir", data.toString());
        assertThat(coverage.get("sources")).as("coverage: %s", coverage).hasSize(1);
        JsonNode names = coverage.at("/sources/0");
        assertThat(names.get("source").asText()).isEqualTo("names");
        assertThat(names.get("indexed").asLong()).isEqualTo(1);
        assertThat(names.get("open_quarantined").asLong()).isEqualTo(1);
        assertThat(names.get("coverage").asDouble()).isEqualTo(0.5);

        JsonNode cohorts = run("cohorts", "--source", "names", "--json", "--data-dir", data.toString());
        JsonNode cohort = cohorts.at("/cohorts/0");
        JsonNode shown = run("show", cohort.get("example_dlq_id").asText(), "--json", "--data-dir", data.toString());
        JsonNode record = shown.get("record");
        assertThat(record.get("source").asText()).isEqualTo("names");
        // the first 32 hex digits of sha256 of "bad\nname.pdf" in UTF-8 (printf 'bad\nname.pdf' | sha256sum)
        assertThat(record.get("doc_id").asText()).doesNotContain("bad")
                .isEqualTo(RecordKey.INVALID_DOC_ID_PREFIX + "77efcd3abe4cec6defd9d38d4226b4b0");
        assertThat(record.get("attempts").asInt()).as("one record, one attempt per run").isEqualTo(2);
        assertThat(shown.get("attempts")).hasSize(2);
        assertThat(record.get("disposition").asText()).isEqualTo("open");
        assertThat(record.get("error_class").asText()).isEqualTo("permanent_input");
        assertThat(record.get("reason_code").asText()).isEqualTo("invalid_message");

        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(out));
        assertThat(cli.execute("drain", "--fingerprint", record.get("error_fingerprint").asText(), "--limit", "5",
                "--rate", "20", "--data-dir", data.toString())).isEqualTo(DrainCommand.NOTHING_ATTEMPTED_EXIT);
        assertThat(out.toString()).contains("not_attempted:invalid_doc_id").contains("no document can be asked");
        assertThat(run("show", record.get("dlq_id").asText(), "--json", "--data-dir", data.toString()))
                .as("left exactly as it was").isEqualTo(shown);

        // its stored payload is the message itself, not a document: reproduce says so in one line, exit 0 (as for
        // the other answers with nothing to parse), and parses nothing; erase keeps the document in the denominator
        StringWriter reproducedText = new StringWriter();
        assertThat(new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(reproducedText))
                .execute("reproduce", record.get("dlq_id").asText(), "--data-dir", data.toString())).isZero();
        assertThat(reproducedText.toString().strip()).doesNotContain("\n").doesNotContain("bad")
                .isEqualTo("names/" + record.get("doc_id").asText() + ": nothing to reproduce: the message named no"
                        + " valid document (invalid doc_id); its stored payload is the message, not a document");
        JsonNode reproduced = run("reproduce", record.get("dlq_id").asText(), "--json", "--data-dir", data.toString());
        assertThat(reproduced.toString()).doesNotContain("bad\\nname");
        assertThat(reproduced.get("outcome").asText()).as("reproduce: %s", reproduced).isEqualToIgnoringCase("invalid_message");
        assertThat(reproduced.get("fingerprint").isNull()).as("nothing parsed: %s", reproduced).isTrue();
        run("erase", "--source", "names", "--doc-id", record.get("doc_id").asText(), "--json", "--data-dir", data.toString());
        JsonNode erased = run("coverage", "--json", "--data-dir", data.toString()).at("/sources/0");
        assertThat(erased.get("erased").asLong()).isEqualTo(1);
        assertThat(erased.get("coverage").asDouble()).isEqualTo(0.5);
    }

    @Test
    void shouldRefuseAMissingFolderWithOneLine() {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new IngestQuarantineCli()).setErr(new PrintWriter(err));
        int code = cli.execute("ingest", data.resolve("missing").toString(), "--data-dir", data.toString());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString().strip()).contains("is not a folder").doesNotContain("\n").doesNotContain("Exception");
    }

    @Test
    void shouldRefuseASourceNameThatNoMessageCouldCarryWithOneLine(@TempDir Path folder) throws Exception {
        java.nio.file.Files.writeString(folder.resolve("a.pdf"), "%PDF-1.4");
        for (String bad : new String[] {"x".repeat(300), "x\ny", "_invalid_messages"}) {
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new IngestQuarantineCli()).setErr(new PrintWriter(err));
            int code = cli.execute("ingest", folder.toString(), "--source", bad, "--data-dir", data.toString());
            assertThat(code).as("exit code for --source of %d characters", bad.length()).isEqualTo(2);
            assertThat(err.toString().strip()).contains("--source").contains("--help").doesNotContain("\n")
                    .doesNotContain("x\ny");
        }
        assertThat(java.nio.file.Files.exists(data.resolve("postgres"))).as("nothing started").isFalse();
    }

    @Test
    void shouldRefuseADataFolderInsideTheIngestedFolderAndTheReverseWithOneLine(@TempDir Path folder) throws Exception {
        java.nio.file.Files.writeString(folder.resolve("a.pdf"), "%PDF-1.4");
        java.nio.file.Files.createDirectories(folder.resolve("sub"));
        java.nio.file.Files.createSymbolicLink(folder.resolve("link"), folder.resolve("sub"));
        String[][] cases = {
            {folder.toString(), folder.toString()},                      // the same folder (a fresh user's run 2)
            {folder.toString(), folder.resolve("data").toString()},      // cd docs; ingest . with ./data
            {folder.resolve("link").toString(), folder.resolve("sub/d").toString()},  // through a link
            {folder.resolve("sub").toString(), folder.toString()},       // the folder inside the data folder
        };
        for (String[] c : cases) {
            StringWriter err = new StringWriter();
            CommandLine cli = new CommandLine(new IngestQuarantineCli()).setErr(new PrintWriter(err));
            int code = cli.execute("ingest", c[0], "--data-dir", c[1]);
            assertThat(code).as("exit code for ingest %s --data-dir %s", c[0], c[1]).isEqualTo(2);
            assertThat(err.toString().strip()).contains("data folder").contains("--help").doesNotContain("\n");
        }
        assertThat(java.nio.file.Files.exists(folder.resolve("postgres"))).as("nothing started").isFalse();
        assertThat(java.nio.file.Files.exists(folder.resolve("data"))).as("nothing started").isFalse();
    }

    private static JsonNode run(String... args) throws Exception {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(out));
        assertThat(cli.execute(args)).isZero();
        return new ObjectMapper().readTree(out.toString());
    }
}
