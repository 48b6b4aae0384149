package org.ingestquarantine.delivery;

import java.util.function.Consumer;
import javax.sql.DataSource;
import org.apache.camel.spi.Registry;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * What a {@link BrokerWiring} is given. Everything in it exists before the broker is wired (the store is
 * built first), so no broker bean looks anything up in the registry at run time.
 *
 * @param settings the application's properties
 * @param registry where the broker binds the beans its endpoint URIs name
 * @param closeOnStop receives every client to close when the Camel context stops, newest closed first
 * @param journal the attempt journal (Kafka's only delivery counter)
 * @param store the quarantine store (Kafka's dead-letter copy is sent only for a committed record)
 * @param dataSource the application's database (Kafka's dead-letter outbox)
 * @param inFlight the attempts in flight, which know when the process is stopping (Kafka's release wait ends then)
 */
public record BrokerSetup(Settings settings, Registry registry, Consumer<AutoCloseable> closeOnStop,
                          AttemptJournal journal, QuarantineStore store, DataSource dataSource,
                          InFlightAttempts inFlight) {
}
