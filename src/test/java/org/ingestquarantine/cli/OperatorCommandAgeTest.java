package org.ingestquarantine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.operator.DrainReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Durations printed to operators (ages, the drain's forecast) round half up at the last unit shown, with a
 * tenth of a second below 10 s, rather than cutting the rest off.
 */
class OperatorCommandAgeTest {

    @ParameterizedTest(name = "{0} ms -> {1}")
    @CsvSource({
            "0, 0s",
            "-5000, 0s",
            "40, 0s",
            "50, 0.1s",
            "400, 0.4s",
            "2449, 2.4s",
            "2450, 2.5s",
            "2500, 2.5s",
            "3000, 3s",
            "9949, 9.9s",
            "9950, 10s",
            "10499, 10s",
            "10500, 11s",
            "59499, 59s",
            "59500, 1m 0s",
            "90000, 1m 30s",
            "3599499, 59m 59s",
            "3599500, 1h 0m",
            "3629999, 1h 0m",
            "3630000, 1h 1m",
            "5400000, 1h 30m",
            "86369999, 23h 59m",
            "86370000, 1d 0h",
            "91799999, 1d 1h",
            "91800000, 1d 2h",
            "7776000000, 90d 0h"})
    void roundsHalfUpAtTheLastUnitShown(long millis, String text) {
        assertThat(OperatorCommand.age(Duration.ofMillis(millis))).isEqualTo(text);
    }

    @Test
    void saysDashForNoDurationAndSignsANegativeArgument() {
        assertThat(OperatorCommand.age(null)).isEqualTo("-");
        assertThat(OperatorCommand.signedAge(Duration.ofDays(-1))).isEqualTo("-1d 0h");
        assertThat(OperatorCommand.signedAge(Duration.ofMillis(-2500))).isEqualTo("-2.5s");
    }

    @Test
    void theDrainForecastPrintsItsTimeRoundedHalfUp() {
        DrainCommand drain = new DrainCommand();
        drain.rate = 4;
        DrainReport canary = new DrainReport("01J000000000000000000000RUN", 10, 1, Map.of("repaired_parser_fixed", 1L),
                1, Duration.ofMillis(250), false,
                new DrainReport.Forecast(10, 10, Duration.ofMillis(2500), 1.0, 0.2, 1.0), Map.of(), Map.of());
        assertThat(drain.text(canary)).contains("forecast for the whole cohort: 10 documents, 10 source requests,"
                + " 2.5s at 4.0/s;");

        DrainReport longer = new DrainReport("01J000000000000000000000RUN", 200, 1, Map.of("repaired_parser_fixed", 1L),
                1, Duration.ofMillis(250), false,
                new DrainReport.Forecast(200, 239, Duration.ofMillis(59_500), 1.0, 0.2, 1.0), Map.of(), Map.of());
        assertThat(drain.text(longer)).contains("239 source requests, 1m 0s at 4.0/s;");
    }
}
