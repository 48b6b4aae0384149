package org.ingestquarantine.boot;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.ingestquarantine.metrics.StoreGauges;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;

/**
 * The quarantine backlog, from the store gauges already in memory (never a query per health check): UP while
 * every source's oldest open record is younger than the alert age, {@value #WARNING_CODE} (a warning, not DOWN:
 * the pipeline still works; someone must drain or dispose) once one is older. Details: the oldest open age in
 * seconds, the source it belongs to, the alert age, and how old the gauges' reading is.
 */
final class QuarantineBacklogHealth implements HealthIndicator {

    /** The status code past the alert age; {@code management.endpoint.health.status.order} ranks it. */
    static final String WARNING_CODE = "WARNING";
    /** The status past the alert age. */
    static final Status WARNING = new Status(WARNING_CODE, "an open quarantine record is older than the alert age");

    private final MeterRegistry meters;
    private final Duration alertAge;

    /**
     * @param meters the registry the store gauges are in
     * @param alertAge the age of the oldest open record past which the status is {@value #WARNING_CODE}
     */
    QuarantineBacklogHealth(MeterRegistry meters, Duration alertAge) {
        this.meters = meters;
        this.alertAge = alertAge;
    }

    @Override
    public Health health() {
        Gauge oldest = null;
        for (Gauge g : meters.find(StoreGauges.OLDEST).gauges()) {
            if (oldest == null || g.value() > oldest.value()) {
                oldest = g;
            }
        }
        Health.Builder health = oldest != null && oldest.value() > alertAge.toSeconds()
                ? Health.status(WARNING) : Health.up();
        health.withDetail("alertAgeSeconds", alertAge.toSeconds());
        if (oldest != null) {
            health.withDetail("oldestOpenAgeSeconds", (long) oldest.value())
                    .withDetail("source", String.valueOf(oldest.getId().getTag("source")));
        }
        Gauge age = meters.find(StoreGauges.AGE).gauge();
        if (age != null) {
            health.withDetail("gaugesAgeSeconds", (long) age.value());
        }
        return health.build();
    }
}
