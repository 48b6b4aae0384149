package org.ingestquarantine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.ingestquarantine.testsupport.Exec;
import org.junit.jupiter.api.Test;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * Ensures the shipped alert rules are valid, pass their own promtool unit tests (the real promtool), test every
 * alert firing in seed 003's year and silent on a healthy day, and name only settings that exist.
 */
class PrometheusRulesTest {

    static final Path RULES_DIR = Path.of("monitoring", "prometheus");
    private static final Duration LIMIT = Duration.ofSeconds(120);

    private static void promtoolPresent() {
        assumeTrue(Exec.run(List.of("promtool", "--version"), LIMIT).exitCode() == 0,
                "promtool is not installed (Debian: apt-get install prometheus; .ci/services installs it): promtool's own"
                        + " checks skipped");
    }

    @Test
    void shouldPassPromtoolCheckRules() throws Exception {
        promtoolPresent();
        Exec check = promtool("check", "rules", files(".rules.yml"));
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS");
    }

    @Test
    void shouldPassPromtoolTestRules() throws Exception {
        promtoolPresent();
        Exec test = promtool("test", "rules", files(".test.yml"));
        assertThat(test.exitCode()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS").doesNotContain("FAILED");
    }

    /**
     * Every alert has a promtool scenario named {@code "<alert>: fires in seed 003's year"} that expects it to
     * fire and one named {@code "<alert>: silent on a healthy day"} that expects it not to, so that no alert is
     * shipped without proof it fires in the state it exists for and stays quiet otherwise.
     */
    @Test
    void shouldTestEveryAlertFiringInSeed003sYearAndSilentOnAHealthyDay() throws Exception {
        Map<String, List<Map<?, ?>>> byName = new TreeMap<>();
        for (String file : files(".test.yml")) {
            for (Object group : (List<?>) yaml(file).get("tests")) {
                Map<?, ?> g = (Map<?, ?>) group;
                if (g.get("name") != null) {
                    byName.computeIfAbsent((String) g.get("name"), k -> new ArrayList<>()).add(g);
                }
            }
        }
        List<String> alerts = alerts();
        assertThat(alerts).contains("NoDrainInSevenDays", "QuarantineOldestOpenOverSevenDays");
        for (String alert : alerts) {
            List<Map<?, ?>> fires = byName.getOrDefault(alert + ": fires in seed 003's year", List.of());
            assertThat(fires).as("a scenario \"%s: fires in seed 003's year\"", alert).hasSize(1);
            assertThat(testsOf(fires.get(0), alert)).as("%s fires in seed 003's year", alert)
                    .anyMatch(t -> t.get("exp_alerts") instanceof List<?> l && !l.isEmpty());
            List<Map<?, ?>> silent = byName.getOrDefault(alert + ": silent on a healthy day", List.of());
            assertThat(silent).as("a scenario \"%s: silent on a healthy day\"", alert).hasSize(1);
            assertThat(testsOf(silent.get(0), alert)).as("%s is silent on a healthy day", alert).isNotEmpty()
                    .allMatch(t -> !(t.get("exp_alerts") instanceof List<?> l) || l.isEmpty());
        }
    }

    /** Every configuration key an alert's annotation names is one the application ships (application.properties). */
    @Test
    void shouldNameOnlySettingsThatExist() throws Exception {
        Pattern key = Pattern.compile("(?<![\\w/.$-])[a-z][a-z0-9-]*(?:\\.[a-z][a-z0-9-]*)+(?![\\w(-])");
        List<String> named = new ArrayList<>();
        for (Map<?, ?> rule : rules()) {
            if (rule.get("annotations") instanceof Map<?, ?> annotations) {
                for (Object text : annotations.values()) {
                    Matcher m = key.matcher(((String) text).replaceAll("\\{\\{.*?}}", " "));
                    while (m.find()) {
                        named.add(m.group());
                    }
                }
            }
        }
        assertThat(named).as("settings the annotations name").contains("operator.retention-age-days");
        var shipped = org.ingestquarantine.testsupport.ShippedProperties.lookup();
        assertThat(named).allSatisfy(k -> assertThat(shipped.apply(k)).as("setting %s", k).isPresent());
    }

    private static List<Map<?, ?>> testsOf(Map<?, ?> group, String alert) {
        List<Map<?, ?>> tests = new ArrayList<>();
        if (group.get("alert_rule_test") instanceof List<?> list) {
            for (Object t : list) {
                if (alert.equals(((Map<?, ?>) t).get("alertname"))) {
                    tests.add((Map<?, ?>) t);
                }
            }
        }
        return tests;
    }

    private static List<String> alerts() throws Exception {
        return rules().stream().map(r -> (String) r.get("alert")).filter(java.util.Objects::nonNull).toList();
    }

    private static List<Map<?, ?>> rules() throws Exception {
        List<Map<?, ?>> rules = new ArrayList<>();
        for (String file : files(".rules.yml")) {
            for (Object group : (List<?>) yaml(file).get("groups")) {
                for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
                    rules.add((Map<?, ?>) rule);
                }
            }
        }
        return rules;
    }

    private static Map<?, ?> yaml(String file) throws Exception {
        return (Map<?, ?>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of(file)));
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
