package org.ingestquarantine.app;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.camel.health.HealthCheck;
import org.apache.camel.health.HealthCheckResultBuilder;
import org.apache.camel.impl.health.AbstractHealthCheck;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.WorkerPoolParser;

/**
 * The pipeline's own Camel health checks, group {@value #GROUP}, bound in the registry where Camel's health-check
 * registry finds them ({@code camel.health.registry-enabled}, on by default) beside its routes' and consumers'
 * checks, under Camel Main and under Spring Boot alike: {@code database} (UP while a connection can be had within
 * {@code db.connect-timeout-ms}), {@code consumer-circuit} (DOWN while the consumer's circuit breaker holds it:
 * the database, the payload store or the embedding service down, or a route fault) and {@code parser-pool} (UP while
 * at least one worker JVM is alive or starting).
 */
final class PipelineHealthChecks {

    /** The group of our checks; a check's id is {@code <group>-<name>}'s name part. */
    static final String GROUP = "ingest-quarantine";

    private PipelineHealthChecks() {
    }

    /** Binds each check as {@code <id>-health-check}. */
    static void bind(Wiring w, Database database, ConsumerCircuitBreaker breaker, DocumentParser parser) {
        for (HealthCheck check : of(database, breaker, parser)) {
            w.bind(check.getId() + "-health-check", check);
        }
    }

    /** @return the checks of the database, the consumer's circuit and the parser pool */
    static List<HealthCheck> of(Database database, ConsumerCircuitBreaker breaker, DocumentParser parser) {
        return List.of(
                new Check("database", b -> {
                    if (database.isReachable()) {
                        b.up();
                    } else {
                        b.down().message("unreachable").detail("reason", "unreachable");
                    }
                }),
                new Check("consumer-circuit", b -> {
                    if (breaker.isOpen()) {
                        b.down().message("the consumer is held by its circuit breaker").detail("held", true);
                    } else {
                        b.up().detail("held", false);
                    }
                }),
                new Check("parser-pool", b -> {
                    if (!(parser instanceof WorkerPoolParser pool)) {
                        b.up().detail("mode", "in-process");
                        return;
                    }
                    WorkerPoolParser.PoolState state = pool.state();
                    (state.closed() || state.alive() == 0 ? b.down() : b.up()).detail("size", state.size())
                            .detail("alive", state.alive()).detail("idle", state.idle());
                }));
    }

    /** A check whose state one probe sets. */
    private static final class Check extends AbstractHealthCheck {

        private final Consumer<HealthCheckResultBuilder> probe;

        Check(String id, Consumer<HealthCheckResultBuilder> probe) {
            super(GROUP, id);
            this.probe = probe;
        }

        @Override
        protected void doCall(HealthCheckResultBuilder builder, Map<String, Object> options) {
            probe.accept(builder);
        }
    }
}
