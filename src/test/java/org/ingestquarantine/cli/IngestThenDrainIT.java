package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.ingestquarantine.testsupport.TextPdf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The README's flow, each command in its own runtime on one data folder's embedded database, as a user runs them:
 * {@code ingest <folder>} quarantines a file; the file is replaced; {@code drain --fingerprint F} in a later
 * process (whose profile does not name the source) re-reads the folder the ingest configured, indexes the
 * document and closes the record as repaired. Then, with that folder gone, a drain leaves the next record exactly
 * as it was and says why.
 */
class IngestThenDrainIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    @Test
    void shouldDrainAFolderSourceInALaterProcessFromTheFolderTheIngestConfigured() throws Exception {
        Path folder = Files.createDirectories(temp.resolve("pdfs"));
        Path data = temp.resolve("data");
        Files.write(folder.resolve("good.pdf"), TextPdf.of("an indexed contract"));
        Files.write(folder.resolve("broken.pdf"), "GIF89a, not a PDF at all".getBytes(StandardCharsets.US_ASCII));
        Files.write(folder.resolve("empty.pdf"), new byte[0]);

        JsonNode ingest = JSON.readTree(run(0, "ingest", folder.toString(), "--json", "--data-dir", data.toString()));
        assertThat(ingest.get("indexed").asInt()).isEqualTo(1);
        JsonNode before = JSON.readTree(run(0, "show", "pdfs/broken.pdf", "--json", "--data-dir", data.toString()));
        String fingerprint = before.at("/record/error_fingerprint").asText();
        String errorClass = before.at("/record/error_class").asText();
        assertThat(errorClass).isEqualTo("permanent_input");

        Files.write(folder.resolve("broken.pdf"), TextPdf.of("the replaced contract now parses"));
        JsonNode drained = JSON.readTree(run(0, "drain", "--fingerprint", fingerprint, "--limit", "1", "--rate", "20",
                "--json", "--data-dir", data.toString()));

        assertThat(drained.get("outcomes").toString()).isEqualTo("{\"repaired_content_changed\":1}");
        JsonNode after = JSON.readTree(run(0, "show", "pdfs/broken.pdf", "--json", "--data-dir", data.toString()));
        assertThat(after.at("/record/disposition").asText()).isEqualTo("repaired_content_changed");
        assertThat(drained.get("verdicts").toString()).as("the bytes' sha256 decided")
                .isEqualTo("{\"repaired_content_changed by=sha256\":1}");
        assertThat(after.at("/record/verdict_by").asText()).isEqualTo("sha256");
        assertThat(after.at("/record/error_fingerprint").asText()).isEqualTo(fingerprint);
        assertThat(after.at("/record/attempts").asInt()).isEqualTo(1);

        // an empty file is refused from its HEAD: nothing stored, and reproduce says so
        assertThat(run(0, "reproduce", "pdfs/empty.pdf", "--data-dir", data.toString())).startsWith(
                "pdfs/empty.pdf: empty payload (0 bytes at the source, nothing stored): same failure permanent_input/empty");

        // the folder the ingest configured is gone: the drain says so, naming it, attempts nothing and exits 3;
        // the next record stays as it was
        JsonNode still = JSON.readTree(run(0, "show", "pdfs/empty.pdf", "--json", "--data-dir", data.toString()));
        TestFolders.delete(folder);
        String text = run(DrainCommand.NOTHING_ATTEMPTED_EXIT, "drain", "--fingerprint",
                still.at("/record/error_fingerprint").asText(), "--limit", "5", "--rate", "20", "--data-dir", data.toString());
        assertThat(text).contains("not_attempted:source_folder_missing")
                .contains("1 records not attempted (source_folder_missing)").contains("the folder " + folder);
        JsonNode unchanged = JSON.readTree(run(0, "show", "pdfs/empty.pdf", "--json", "--data-dir", data.toString()));
        assertThat(unchanged).isEqualTo(still);
    }

    private static String run(int expected, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new IngestQuarantineCli()).setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err));
        assertThat(cli.execute(args)).as("%s; stderr: %s", String.join(" ", args), err).isEqualTo(expected);
        return out.toString();
    }

    /** Deletes a folder tree. */
    private static final class TestFolders {
        static void delete(Path root) throws Exception {
            try (var walk = Files.walk(root)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
