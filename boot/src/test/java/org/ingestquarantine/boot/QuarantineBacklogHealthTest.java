package org.ingestquarantine.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.ingestquarantine.metrics.StoreGauges;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/** Ensures an old open quarantine record makes the backlog a WARNING, never DOWN, read from the store gauges. */
class QuarantineBacklogHealthTest {

    private static final Duration ALERT_AGE = Duration.ofDays(7);

    private final MeterRegistry meters = new SimpleMeterRegistry();
    private final QuarantineBacklogHealth backlog = new QuarantineBacklogHealth(meters, ALERT_AGE);

    @Test
    void shouldBeUpBeforeTheGaugesHaveBeenRead() {
        assertThat(backlog.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void shouldBeUpWhileEveryOldestOpenRecordIsYoungerThanTheAlertAge() {
        oldest("a", ALERT_AGE.toSeconds() - 1);
        oldest("b", 10);
        assertThat(backlog.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void shouldWarnNamingTheSourceOnceAnOldestOpenRecordIsPastTheAlertAge() {
        oldest("young", 10);
        oldest("stale", ALERT_AGE.toSeconds() + 60);
        Health health = backlog.health();
        assertThat(health.getStatus()).isEqualTo(QuarantineBacklogHealth.WARNING).isNotEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("source", "stale")
                .containsEntry("oldestOpenAgeSeconds", ALERT_AGE.toSeconds() + 60)
                .containsEntry("alertAgeSeconds", ALERT_AGE.toSeconds());
    }

    private void oldest(String source, long seconds) {
        Gauge.builder(StoreGauges.OLDEST, new AtomicLong(seconds), AtomicLong::get).tag("source", source).register(meters);
    }
}
