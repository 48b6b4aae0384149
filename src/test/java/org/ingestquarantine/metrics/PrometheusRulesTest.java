package org.ingestquarantine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.ingestquarantine.testsupport.Exec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Ensures the shipped alert rules are valid and pass their own promtool unit tests (the real promtool). */
class PrometheusRulesTest {

    static final Path RULES_DIR = Path.of("monitoring", "prometheus");
    private static final Duration LIMIT = Duration.ofSeconds(120);

    @BeforeAll
    static void promtoolPresent() {
        assumeTrue(Exec.run(List.of("promtool", "--version"), LIMIT).exitCode() == 0,
                "promtool is not installed (Debian: apt-get install prometheus; .ci/services installs it): rule tests skipped");
    }

    @Test
    void shouldPassPromtoolCheckRules() throws Exception {
        Exec check = promtool("check", "rules", files(".rules.yml"));
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS");
    }

    @Test
    void shouldPassPromtoolTestRules() throws Exception {
        Exec test = promtool("test", "rules", files(".test.yml"));
        assertThat(test.exitCode()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS").doesNotContain("FAILED");
    }

    private static Exec promtool(String verb, String object, List<String> files) {
        List<String> command = new ArrayList<>(List.of("promtool", verb, object));
        command.addAll(files);
        return Exec.run(command, LIMIT);
    }

    static List<String> files(String suffix) throws Exception {
        try (Stream<Path> list = Files.list(RULES_DIR)) {
            List<String> files = list.filter(p -> p.getFileName().toString().endsWith(suffix)).map(Path::toString)
                    .sorted().toList();
            assertThat(files).as("%s files in %s", suffix, RULES_DIR).isNotEmpty();
            return files;
        }
    }
}
