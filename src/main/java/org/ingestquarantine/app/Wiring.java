package org.ingestquarantine.app;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Deque;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.ingestquarantine.pipeline.Settings;

/**
 * What every feature's wiring works with: the Camel context, its properties, its registry, what was started (to
 * stop newest first with the context: {@link StartedServices}), the data folder, the start-up timeline and the clock.
 *
 * @param started what to close when the context stops, newest first
 * @param dataDir {@code iq.data-dir}
 */
record Wiring(CamelContext context, Settings settings, Registry registry, Deque<AutoCloseable> started, Path dataDir,
              StartupTimeline timeline, Clock clock) {

    /** Binds a bean a route file (or another wiring) names. */
    void bind(String name, Object bean) {
        registry.bind(name, bean);
    }

    /** Closes {@code service} when the context stops, before whatever was started earlier. */
    void closeOnStop(AutoCloseable service) {
        started.push(service);
    }
}
