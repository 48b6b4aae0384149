package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.testsupport.ConsumerProcess;
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
 * PostgreSQL stayed behind with PPID 1. Broken YAML is said with Camel's file, line, column and caret.
 */
class RouteFailureStartupIT {

    private static final Duration STOPPED_WITHIN = Duration.ofSeconds(10);

    @TempDir
    Path temp;

    static Stream<Arguments> routeMistakes() {
        return Stream.of(
                Arguments.of("an unknown bean", (UnaryOperator<String>) s -> s.replace("ref: outcomes, method: released",
                        "ref: outcomez, method: released"), "run: route release: No bean could be found in the registry"
                        + " for: outcomez"),
                Arguments.of("an unknown field", (UnaryOperator<String>) s -> s.replace(
                        "    routeConfigurationId: inner-stage\n", "    routeConfigurationId: inner-stage\n    bogusField: 1\n"),
                        "release.camel.yaml:6:5: Unsupported field: bogusField"),
                Arguments.of("a missing component", (UnaryOperator<String>) s -> s.replace(
                        "        - bean: { ref: outcomes, method: released }\n",
                        "        - to: ftp://localhost/inbox\n        - bean: { ref: outcomes, method: released }\n"),
                        "run: route release: No endpoint could be found for: ftp://localhost/inbox"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routeMistakes")
    void shouldExitNamingTheMistakeAndLeaveNoPostgresRunning(String mistake, UnaryOperator<String> edit,
                                                             String message) throws Exception {
        RoutesCopy routes = RoutesCopy.of(temp).edit("release.camel.yaml", edit);
        Path data = temp.resolve("data");
        Path log = temp.resolve("run.log");
        long postmaster;
        int exit;
        try (ConsumerProcess run = routes.run(data, Map.of(), log)) {
            postmaster = awaitPostmaster(EmbeddedPostgresService.folderIn(data), run, log);
            exit = run.awaitExit(RoutesCopy.START_LIMIT);
        }
        String out = Files.readString(log);
        assertThat(exit).as("exit code; output:%n%s", out).isEqualTo(1);
        assertThat(out).contains(message);
        long deadline = System.nanoTime() + STOPPED_WITHIN.toNanos();
        while (ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        boolean left = ProcessHandle.of(postmaster).map(ProcessHandle::isAlive).orElse(false);
        ProcessHandle.of(postmaster).ifPresent(ProcessHandle::destroy); // not left behind by a failing test either
        assertThat(left).as("PostgreSQL (pid %d) still running after a start-up failed on %s", postmaster, mistake)
                .isFalse();
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

    /** @return the embedded PostgreSQL server's pid, read from its {@code postmaster.pid} while the consumer starts */
    private static long awaitPostmaster(Path postgres, ConsumerProcess run, Path log) throws Exception {
        long deadline = System.nanoTime() + RoutesCopy.START_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            OptionalLong pid = readPid(postgres.resolve("postmaster.pid"));
            if (pid.isPresent()) {
                return pid.getAsLong();
            }
            if (!run.isAlive()) {
                throw new AssertionError("exited before its PostgreSQL was seen; output:\n" + Files.readString(log));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no PostgreSQL started within " + RoutesCopy.START_LIMIT);
    }

    private static OptionalLong readPid(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile);
            long pid = lines.isEmpty() || lines.get(0).isBlank() ? 0 : Long.parseLong(lines.get(0).trim());
            // initdb's single-user backend writes its pid negated: the server's own comes after it
            return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
        } catch (java.io.IOException | NumberFormatException notYet) {
            return OptionalLong.empty();
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
