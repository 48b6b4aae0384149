package org.ingestquarantine.boot;

import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * Health of the parser worker pool: UP while at least one worker JVM is alive or starting (a dead worker is
 * replaced in the background), DOWN when none is or the pool is closed. Details: size, alive, idle.
 */
final class ParserPoolHealth implements HealthIndicator {

    private final PipelineBeans beans;

    ParserPoolHealth(PipelineBeans beans) {
        this.beans = beans;
    }

    @Override
    public Health health() {
        DocumentParser parser = beans.find("documentParser", DocumentParser.class).orElse(null);
        if (parser == null) {
            return Health.unknown().withDetail("reason", "not wired yet").build();
        }
        if (!(parser instanceof WorkerPoolParser pool)) {
            return Health.up().withDetail("mode", "in-process").build();
        }
        WorkerPoolParser.PoolState state = pool.state();
        Health.Builder health = state.closed() || state.alive() == 0 ? Health.down() : Health.up();
        return health.withDetail("size", state.size()).withDetail("alive", state.alive())
                .withDetail("idle", state.idle()).build();
    }
}
