package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: each worked example of routes/README.md ("Worked examples") works as written: its files under
 * {@code routes/examples/<name>/} are the README's fenced blocks verbatim, and a copy of {@code routes/} with the
 * example applied passes {@code check-routes} (the sample set with exact accounting), with the example's effect seen.
 */
class RouteExamplesIT {

    private static final Path EXAMPLES = Path.of("routes/examples");

    @TempDir
    Path temp;

    @Test
    void shouldShowEveryExampleFileVerbatimInTheGuide() throws Exception {
        String guide = Files.readString(Path.of("routes/README.md"));
        try (var files = Files.walk(EXAMPLES)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(guide).as("routes/README.md shows %s verbatim in a fenced block", file)
                        .contains("\n" + Files.readString(file) + "```\n");
            }
        }
    }

    @Test
    void shouldDeliverADamagedPdfThreeTimesWithTheChangedBudget() throws Exception {
        Properties budget = new Properties();
        budget.load(new StringReader(Files.readString(EXAMPLES.resolve("change-a-budget/budget.properties"))));
        Map<String, String> set = new HashMap<>();
        budget.stringPropertyNames().forEach(k -> set.put(k, budget.getProperty(k)));
        CheckRoutesIT.Run run = CheckRoutesIT.checkRoutesWith(Path.of("routes").toAbsolutePath(), set);
        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.out()).as("%s", run)
                .contains("PASS deliveries = retries + 1 per class: ambiguous_parse 3, permanent_input 1");
    }

    @Test
    void shouldTapEachQuarantinedDocumentsEvidenceToAFile() throws Exception {
        String tap = Files.readString(EXAMPLES.resolve("tap-evidence/quarantine-tap.yaml"));
        RoutesCopy copy = RoutesCopy.of(temp)
                .add("evidence-tap.camel.yaml", Files.readString(EXAMPLES.resolve("tap-evidence/evidence-tap.camel.yaml")))
                .edit("quarantine.camel.yaml", y -> y.replace(
                        "              - bean: { ref: quarantineRecorder, method: committed }\n",
                        "              - bean: { ref: quarantineRecorder, method: committed }\n" + tap));
        Path out = temp.resolve("evidence");
        CheckRoutesIT.Run run = CheckRoutesIT.checkRoutesWith(copy.folder().toAbsolutePath(),
                Map.of("evidence-tap.dir", out.toString()));
        assertThat(run.exitCode()).as("%s", run).isZero();
        List<String> lines = Files.readAllLines(out.resolve("quarantined.tsv"));
        assertThat(lines).as("one line per quarantined sample").hasSize(7)
                .allSatisfy(l -> assertThat(l.split("\t")).hasSize(4).startsWith("check-routes"))
                .anySatisfy(l -> assertThat(l).endsWith("\tambiguous_parse\tparse_error"));
    }
}
