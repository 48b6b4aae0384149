package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.ingestquarantine.failure.ErrorClass;
import org.junit.jupiter.api.Test;

/**
 * Ensures a source's window reports a storm exactly when one fingerprint fails the share of at least the minimum
 * deliveries among its last ones, and never for failures scattered over a long healthy run.
 */
class FailureWindowsTest {

    /** 10 deliveries, judged from 6 on, 50% failing with one fingerprint. */
    private static final StormThresholds SMALL = new StormThresholds(10, 6, 50, Duration.ofDays(30),
            Duration.ofSeconds(2), Duration.ofSeconds(60));
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");

    private final FailureWindows windows = new FailureWindows(SMALL);

    @Test
    void shouldReportAStormOnceOneFingerprintFailsTheShareOfTheMinimumDeliveries() {
        windows.succeeded("docs");
        windows.succeeded("docs");
        assertThat(fail("docs", "f1", 1)).isEmpty();
        assertThat(fail("docs", "f1", 2)).isEmpty();
        assertThat(fail("docs", "f1", 3)).as("3 of 5 deliveries: fewer than the minimum 6").isEmpty();

        Optional<Storm> storm = fail("docs", "f1", 4);

        assertThat(storm).hasValueSatisfying(s -> {
            assertThat(s.source()).isEqualTo("docs");
            assertThat(s.fingerprint()).isEqualTo("f1");
            assertThat(s.failed()).isEqualTo(4);
            assertThat(s.deliveries()).isEqualTo(6);
            assertThat(s.percent()).isEqualTo(66);
            assertThat(s.began()).as("the window's first failure with it").isEqualTo(T0.plusSeconds(1));
            assertThat(s.errorClass()).isEqualTo(ErrorClass.AMBIGUOUS_PARSE);
        });
    }

    @Test
    void shouldJudgeEachFingerprintOnItsOwnAndEachSourceOnItsOwn() {
        for (int i = 0; i < 2; i++) {
            for (String fingerprint : new String[] {"f1", "f2", "f3"}) {
                assertThat(fail("docs", fingerprint, i)).as("every delivery failing, each fingerprint a third")
                        .isEmpty();
            }
        }
        for (int i = 0; i < 5; i++) {
            assertThat(fail("wiki", "f1", i)).as("another source's window").isEmpty();
        }
        assertThat(windows.deliveries("docs")).isEqualTo(6);
    }

    @Test
    void shouldNeverReportFailuresScatteredOverALongHealthyRun() {
        for (int i = 0; i < 1_000; i++) {
            if (i % 4 == 0) {
                assertThat(fail("docs", "f1", i)).as("one in four fails, always under 50%% of the last 10").isEmpty();
            } else {
                windows.succeeded("docs");
            }
        }
        assertThat(windows.deliveries("docs")).as("the window keeps only the last deliveries").isEqualTo(10);
    }

    @Test
    void shouldForgetTheFailuresThatLeftTheWindow() {
        for (int i = 0; i < 4; i++) {
            fail("docs", "f1", i);
        }
        for (int i = 0; i < 9; i++) {
            windows.succeeded("docs");
        }
        assertThat(fail("docs", "f1", 100)).as("1 of the last 10: the 4 before left it").isEmpty();
    }

    @Test
    void shouldStartFromAnEmptyWindowOnceCleared() {
        for (int i = 0; i < 5; i++) {
            fail("docs", "f1", i);
        }
        windows.clear("docs");
        assertThat(fail("docs", "f1", 10)).isEmpty();
        assertThat(windows.deliveries("docs")).isEqualTo(1);
    }

    @Test
    void shouldRefuseThresholdsThatCannotBeRightNamingTheProperty() {
        assertThatThrownBy(() -> new StormThresholds(10, 11, 50, Duration.ZERO, Duration.ofSeconds(1), Duration.ZERO))
                .hasMessageContaining(StormThresholds.MIN_DELIVERIES);
        assertThatThrownBy(() -> new StormThresholds(10, 5, 0, Duration.ZERO, Duration.ofSeconds(1), Duration.ZERO))
                .hasMessageContaining(StormThresholds.FAILING_PERCENT);
    }

    private Optional<Storm> fail(String source, String fingerprint, int second) {
        return windows.failed(source, new FailureWindows.Failure(fingerprint, ErrorClass.AMBIGUOUS_PARSE,
                "parse_error", T0.plusSeconds(second)));
    }
}
