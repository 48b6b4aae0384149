package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 22: {@code check-routes} passes the shipped routes with the sample set's exact accounting, and fails a
 * broken copy naming the file and line of what is wrong: a bean method mistyped, an endpoint whose component is not
 * on the class path (both found without a message), and an expression that compiles but fails on every document
 * ({@code ${body.pageCont}}, found by running the samples).
 */
class CheckRoutesIT {

    @TempDir
    Path temp;

    /** What one run printed and its exit code. */
    record Run(int exitCode, String out, String err) {

        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
        }
    }

    /** @return {@code check-routes --routes <routes>} run in this JVM on the shipped samples */
    static Run checkRoutes(Path routes, String... more) {
        return checkRoutesOn(routes, Path.of("samples/pdfs").toAbsolutePath(), more);
    }

    /** @return {@code check-routes --routes <routes> --samples <samples>} run in this JVM */
    static Run checkRoutesOn(Path routes, Path samples, String... more) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = IngestQuarantineCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        List<String> args = new java.util.ArrayList<>(List.of("check-routes", "--routes", routes.toString(),
                "--samples", samples.toString()));
        args.addAll(List.of(more));
        int code = cli.execute(args.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    /** @return the 1-based line of the first line of {@code file} containing {@code text} */
    static int lineOf(Path file, String text) throws java.io.IOException {
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(text)) {
                return i + 1;
            }
        }
        throw new AssertionError(text + " not in " + file);
    }

    @Test
    void shouldPassTheShippedRoutes() {
        Run run = checkRoutes(Path.of("routes").toAbsolutePath());
        assertThat(run.exitCode()).as("%s", run).isZero();
        assertThat(run.out()).as("%s", run).contains("PASS route files", "PASS routes start",
                "PASS every message one outcome: 13 messages", "PASS no open attempt",
                "PASS deliveries = retries + 1 per class: ambiguous_parse 2, permanent_input 1",
                "PASS summary counts = database counts: indexed 6,", "PASS no failure of the routes themselves",
                "check-routes: PASS in ").doesNotContain("FAIL");
    }

    @Test
    void shouldNameTheFileAndLineOfAMistypedBeanMethodAndAnUnknownEndpoint() throws Exception {
        RoutesCopy copy = RoutesCopy.of(temp)
                .edit("process-document.camel.yaml", y -> y.replace("method: unchanged }", "method: unchangd }"))
                .edit("release.camel.yaml", y -> y.replace("uri: direct:release", "uri: ftp://example.org/release"));
        Path process = copy.folder().resolve("process-document.camel.yaml").toAbsolutePath();
        Path release = copy.folder().resolve("release.camel.yaml").toAbsolutePath();
        Run run = checkRoutes(copy.folder().toAbsolutePath());
        assertThat(run.exitCode()).as("%s", run).isEqualTo(1);
        // Camel places a flow mapping's node ({ ref: ..., method: ... }) on its own line or the one before
        int bean = lineOf(process, "unchangd");
        assertThat(run.out()).as("%s", run)
                .containsAnyOf(process + ":" + bean + ": bean 'outcomes' has no method 'unchangd' (it has: indexed,",
                        process + ":" + (bean - 1) + ": bean 'outcomes' has no method 'unchangd' (it has: indexed,")
                .contains(release + ":" + lineOf(release, "ftp://") + ": endpoint ftp://example.org/release: no component"
                        + " 'ftp' on the class path")
                .contains("FAIL route files: 2 problem(s)").doesNotContain("PASS routes start");
        assertThat(run.err()).as("%s", run).startsWith("check-routes: 2 problem(s) in ");
    }

    @Test
    void shouldNameTheFileAndLineOfAnExpressionThatFailsOnEveryDocument() throws Exception {
        RoutesCopy copy = RoutesCopy.of(temp).edit("process-document.camel.yaml", y -> y.replace("""
                        - step:
                            id: parse
                """, """
                        - filter:
                            simple: "${body.pageCont} > 100"
                            steps:
                              - log: "a long document"
                        - step:
                            id: parse
                """));
        Path process = copy.folder().resolve("process-document.camel.yaml").toAbsolutePath();
        Run run = checkRoutes(copy.folder().toAbsolutePath());
        assertThat(run.exitCode()).as("%s", run).isEqualTo(1);
        assertThat(run.out()).as("%s", run).contains("PASS route files", "PASS routes start")
                .contains(process + ":" + (lineOf(process, "pageCont") - 1) + ": MethodNotFoundException while running filter")
                .contains("FAIL no failure of the routes themselves: 1: " + process + ":");
        assertThat(run.err()).as("%s", run).contains("FAIL no failure of the routes themselves");
    }

    @Test
    void shouldRefuseCamelsOwnRedeliveriesAsTheRealStartDoes() throws Exception {
        RoutesCopy copy = RoutesCopy.of(temp).edit("error-policy.camel.yaml", y -> y.replace(
                "exception: [java.lang.Exception]\n          redeliveryPolicy: { maximumRedeliveries: 0,",
                "exception: [java.lang.Exception]\n          redeliveryPolicy: { maximumRedeliveries: 3,"));
        Path policy = copy.folder().resolve("error-policy.camel.yaml").toAbsolutePath();
        assertThat(Files.readString(policy)).contains("maximumRedeliveries: 3");
        Run run = checkRoutes(copy.folder().toAbsolutePath());
        assertThat(run.exitCode()).as("%s", run).isEqualTo(1);
        assertThat(run.out()).as("%s", run).contains("PASS route files")
                .contains("FAIL routes start: " + policy + ":").contains("redeliveryPolicy maximumRedeliveries 3")
                .doesNotContain("PASS routes start");
        assertThat(run.err()).as("%s", run).contains("Camel must not redeliver");
    }

    @Test
    void shouldFailARouteThatEndsDeliveriesWithoutAnOutcome() throws Exception {
        RoutesCopy copy = RoutesCopy.of(temp).edit("process-document.camel.yaml", y -> y.replace(
                "        - filter:\n            # the index's version",
                "        - stop: {}\n        - filter:\n            # the index's version"));
        assertThat(Files.readString(copy.folder().resolve("process-document.camel.yaml"))).contains("- stop: {}");
        Run run = checkRoutes(copy.folder().toAbsolutePath());
        assertThat(run.exitCode()).as("%s", run).isEqualTo(1);
        assertThat(run.out()).as("%s", run).contains("PASS routes start")
                .containsPattern("FAIL every message one outcome: \\d+ of 13 abandoned");
        assertThat(run.err()).as("%s", run).contains("abandoned");
    }

    /** Not a test of its own: the example tests' shared run, a routes copy with {@code overrides} as system properties. */
    static Run checkRoutesWith(Path routes, Map<String, String> systemProperties) {
        return checkRoutesWith(routes, Path.of("samples/pdfs").toAbsolutePath(), systemProperties);
    }

    /** Not a test of its own: {@link #checkRoutesWith(Path, Map)} on a samples folder of the test's own. */
    static Run checkRoutesWith(Path routes, Path samples, Map<String, String> systemProperties) {
        systemProperties.forEach(System::setProperty);
        try {
            return checkRoutesOn(routes, samples);
        } finally {
            systemProperties.keySet().forEach(System::clearProperty);
        }
    }
}
