package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Postmaster;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 22: a route file a Camel engineer got wrong makes {@code run} fail at start-up (exit 1) with a message
 * naming what to fix, and leaves nothing running. An unknown bean, an unknown field or a missing component fails
 * after the embedded PostgreSQL (and the broker and the parse workers) started: reproduced 5 times, the
 * PostgreSQL stayed behind with PPID 1. Broken YAML is said with Camel's file, line, column and caret. So are the
 * start-up guards (issue 22 item 3): Camel's own redeliveries in a delivery's routes, and a class budget that the
 * broker's own dead-lettering would cut short.
 */
class RouteFailureStartupIT {

    private static final String RELEASE = "release.camel.yaml";
    /** The line of {@code - onException:} of on-failure in the shipped error-policy.camel.yaml. */
    private static final int ON_FAILURE_LINE = onFailureLine();

    @TempDir
    Path temp;

    static Stream<Arguments> routeMistakes() {
        return Stream.of(
                Arguments.of("an unknown bean", RELEASE, (UnaryOperator<String>) s -> s.replace(
                        "ref: outcomes, method: released", "ref: outcomez, method: released"), Map.of(),
                        "run: route release: No bean could be found in the registry for: outcomez"),
                Arguments.of("an unknown field", RELEASE, (UnaryOperator<String>) s -> s.replace(
                        "    routeConfigurationId: inner-stage\n", "    routeConfigurationId: inner-stage\n    bogusField: 1\n"),
                        Map.of(), "release.camel.yaml:6:5: Unsupported field: bogusField"),
                Arguments.of("a missing component", RELEASE, (UnaryOperator<String>) s -> s.replace(
                        "        - bean: { ref: outcomes, method: released }\n",
                        "        - to: ftp://localhost/inbox\n        - bean: { ref: outcomes, method: released }\n"),
                        Map.of(), "run: route release: No endpoint could be found for: ftp://localhost/inbox"),
                // issue 22 item 3: Camel redelivering under the broker's redelivery (8 parses, 1 attempt recorded)
                Arguments.of("Camel's own redeliveries", "error-policy.camel.yaml", (UnaryOperator<String>) s -> s.replace(
                        "          id: on-failure\n          exception: [java.lang.Exception]\n"
                                + "          redeliveryPolicy: { maximumRedeliveries: 0,",
                        "          id: on-failure\n          exception: [java.lang.Exception]\n"
                                + "          redeliveryPolicy: { maximumRedeliveries: 3,"), Map.of(),
                        "error-policy.camel.yaml:" + ON_FAILURE_LINE + ": redeliveryPolicy maximumRedeliveries 3 on"
                                + " onException on-failure of route ingest-consumer: Camel must not redeliver (the broker"
                                + " does); a class's deliveries are failure.<class>.retries in application.properties"),
                // issue 22 item 3: a budget past the embedded SQS queue's redrive (maxReceiveCount 10, read from it)
                Arguments.of("a budget the broker's redrive cuts short", null, null,
                        Map.of("failure.ambiguous_parse.retries", "12"), "run: failure.ambiguous_parse.retries=12 gives"
                                + " 13 deliveries, at or above the SQS queue ingest's maxReceiveCount 10 (its"
                                + " RedrivePolicy: broker-configs/sqs/ingest.attributes.json for the queues we create): raise the"
                                + " backstop above every budget or lower the budget"),
                // a fresh user's trial: the line named the missing folder, not the setting that names it
                Arguments.of("a source folder that does not exist", null, null,
                        Map.of("sources.other.file-roots", "/nonexistent-iq-root"), "run: sources.other.file-roots:"
                                + " folder '/nonexistent-iq-root' does not exist or cannot be read (NoSuchFileException);"
                                + " configure an existing folder"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routeMistakes")
    void shouldExitNamingTheMistakeAndLeaveNoPostgresRunning(String mistake, String file, UnaryOperator<String> edit,
                                                             Map<String, String> properties, String message)
            throws Exception {
        RoutesCopy routes = RoutesCopy.of(temp);
        if (file != null) {
            routes.edit(file, edit);
        }
        Path data = temp.resolve("data");
        Path log = temp.resolve("run.log");
        long postmaster;
        int exit;
        try (ConsumerProcess run = routes.run(data, properties, log)) {
            postmaster = Postmaster.await(data, run, log);
            exit = run.awaitExit(RoutesCopy.START_LIMIT);
        }
        String out = Files.readString(log);
        assertThat(exit).as("exit code; output:%n%s", out).isEqualTo(1);
        assertThat(out).contains(message);
        assertThat(out.lines().filter(l -> l.startsWith("run: "))).as("one line says it; output:%n%s", out).hasSize(1);
        assertThat(out).as("no stack trace").doesNotContain("\tat ");
        assertThat(Postmaster.leftRunning(postmaster))
                .as("PostgreSQL (pid %d) still running after a start-up failed on %s", postmaster, mistake).isFalse();
    }

    @Test
    void shouldSayWhereTheYamlIsBrokenWithCamelsCaret() throws Exception {
        String broken = "     steps: [ {";
        RoutesCopy routes = RoutesCopy.of(temp).edit("release.camel.yaml",
                s -> s.replace("      uri: direct:release\n", "      uri: direct:release\n" + broken + "\n"));
        Path file = routes.folder().resolve("release.camel.yaml");
        int line = Files.readAllLines(file).indexOf(broken) + 1;
        Path log = temp.resolve("run.log");
        int exit;
        try (ConsumerProcess run = routes.run(temp.resolve("data"), Map.of(), log)) {
            exit = run.awaitExit(RoutesCopy.START_LIMIT);
        }
        List<String> out = Files.readAllLines(log);
        assertThat(exit).as("exit code; output:%n%s", String.join("\n", out)).isEqualTo(1);
        int first = indexOfPrefix(out, "run: ");
        assertThat(out.get(first)).as("the first line names the file, line and column")
                .startsWith("run: " + file.toAbsolutePath() + ":" + line + ":6: ")
                .contains("expected <block end>");
        List<String> rest = out.subList(first + 1, out.size());
        int place = rest.indexOf(" in file:" + file.toAbsolutePath() + ", line " + line + ", column 6:");
        assertThat(place).as("Camel's marked place follows: %s", rest).isNotNegative();
        assertThat(rest.get(place + 1)).as("the line itself").endsWith(broken);
        assertThat(rest.get(place + 2)).as("a caret under column 6 of it")
                .isEqualTo(" ".repeat(rest.get(place + 1).length() - broken.length() + 5) + "^");
    }

    private static int onFailureLine() {
        try {
            return Files.readAllLines(Path.of("routes", "error-policy.camel.yaml")).indexOf("          id: on-failure");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int indexOfPrefix(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' in:\n" + String.join("\n", lines));
    }
}
