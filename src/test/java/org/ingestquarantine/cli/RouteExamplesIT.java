package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.LanguageFilter;
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

    @Test
    void shouldSkipDocumentsOutsideTheAcceptedLanguagesAsTheirOwnStage() throws Exception {
        Path samples = LanguageFilter.samples(temp.resolve("samples"));
        RoutesCopy copy = LanguageFilter.editedRoutes(temp);
        CheckRoutesIT.Run run = CheckRoutesIT.checkRoutesWith(copy.folder().toAbsolutePath(), samples, Map.of());
        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.out()).as("%s", run).contains("PASS every message one outcome: 15 messages", "PASS no open attempt",
                "PASS summary counts = database counts: indexed 6,", ", skipped {language=2}");
    }

    @Test
    void shouldRunTheHttpIntakeOnCamelsServerAndNameItWhileTheServerIsOff() throws Exception {
        RoutesCopy copy = RoutesCopy.of(temp).add("http-intake.camel.yaml",
                Files.readString(EXAMPLES.resolve("http-intake/http-intake.camel.yaml")));
        Path intake = copy.folder().resolve("http-intake.camel.yaml").toAbsolutePath();
        CheckRoutesIT.Run off = CheckRoutesIT.checkRoutes(copy.folder().toAbsolutePath());
        assertThat(off.exitCode()).as("%s", off).isEqualTo(1);
        assertThat(off.out()).as("%s", off).contains(intake + ":" + CheckRoutesIT.lineOf(intake, "platform-http:")
                + ": endpoint platform-http:/intake", "needs Camel's HTTP server: set camel.server.enabled=true");
        CheckRoutesIT.Run on = CheckRoutesIT.checkRoutesWith(copy.folder().toAbsolutePath(),
                Map.of("camel.server.enabled", "true", "camel.server.port", Integer.toString(FreePort.find())));
        assertThat(on.exitCode()).as("%s", on).isZero();
        assertThat(on.out()).as("%s", on).contains("PASS routes start", "PASS every message one outcome: 13 messages",
                "PASS summary counts = database counts: indexed 6,").doesNotContain("FAIL");
    }
}
