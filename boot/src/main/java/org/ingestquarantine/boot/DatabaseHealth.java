package org.ingestquarantine.boot;

import org.ingestquarantine.db.Database;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * Health of the quarantine and index database: UP while a connection can be had within
 * {@code db.connect-timeout-ms}, DOWN otherwise (the consumer is then held by its circuit breaker).
 */
final class DatabaseHealth implements HealthIndicator {

    private final PipelineBeans beans;

    DatabaseHealth(PipelineBeans beans) {
        this.beans = beans;
    }

    @Override
    public Health health() {
        return beans.find("database", Database.class)
                .map(db -> db.isReachable() ? Health.up() : Health.down().withDetail("reason", "unreachable"))
                .orElseGet(() -> Health.unknown().withDetail("reason", "not wired yet"))
                .build();
    }
}
