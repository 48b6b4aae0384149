package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: what a Camel engineer adds to {@code routes/} works in the production consumer as it does in any
 * Camel application: a {@code log} step prints its line at INFO under the route's id (a {@code to: log:} endpoint
 * under its name) although our logback.xml keeps Camel at WARN, a {@code wireTap} to {@code file:} writes its
 * file, a {@code timer:} fires; and a logback.xml given outside the jar ({@code -Dlogback.configurationFile}, as
 * {@code IQ_LOGBACK} passes it) keeps the levels it sets.
 */
class RouteAuthoringIT {

    @TempDir
    Path temp;

    @Test
    void shouldShowALogStepAtInfoAndWriteTheWireTapsFile() throws Exception {
        Path out = Files.createDirectories(temp.resolve("tapped"));
        RoutesCopy routes = RoutesCopy.of(temp)
                .add("tap.camel.yaml", tapRoute("tap-check", out.resolve("tap.txt")))
                .add("quiet.camel.yaml", tapRoute("quiet-check", out.resolve("quiet.txt")));
        // the shipped logback.xml, as given outside the jar, with one level of the user's own
        Path logback = temp.resolve("logback.xml");
        Files.writeString(logback, Files.readString(Path.of("src/main/resources/logback.xml"))
                .replace("<root ", "<logger name=\"quiet-check\" level=\"WARN\"/>\n  <root "));
        Path log = temp.resolve("run.log");
        try (ConsumerProcess run = routes.run(temp.resolve("data"),
                Map.of("logback.configurationFile", logback.toString()), log)) {
            Awaitility.await().atMost(RoutesCopy.START_LIMIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                assertThat(run.isAlive()).as("run alive; output:%n%s", Files.readString(log)).isTrue();
                return Files.exists(out.resolve("tap.txt")) && Files.exists(out.resolve("quiet.txt"))
                        && Files.readString(log).contains("tap-check-component");
            });
            assertThat(out.resolve("tap.txt")).as("the wireTap's file").hasContent("tapped by tap-check");
            String output = Files.readString(log);
            assertThat(output).as("the log step at INFO under its route id")
                    .contains("INFO  tap-check - tap-check fired");
            assertThat(output).as("the log: endpoint at INFO under its name").contains("INFO  tap-check-component - ");
            assertThat(output).as("a level the user's logback.xml set is kept").doesNotContain("quiet-check fired");
            assertThat(run.terminate()).as("exit code after SIGTERM; output:%n%s", Files.readString(log)).isZero();
        }
    }

    /** @return a route that fires once: its body, a log step, a log: endpoint, and a wireTap of the body to {@code file} */
    private static String tapRoute(String id, Path file) {
        return """
                - route:
                    id: %1$s
                    from:
                      uri: "timer:%1$s?repeatCount=1&delay=0"
                      steps:
                        - setBody: { constant: "tapped by %1$s" }
                        - log: "%1$s fired"
                        - to: "log:%1$s-component?showBody=false"
                        - wireTap:
                            uri: "file:%2$s?fileName=%3$s"
                """.formatted(id, file.getParent().toAbsolutePath(), file.getFileName());
    }
}
