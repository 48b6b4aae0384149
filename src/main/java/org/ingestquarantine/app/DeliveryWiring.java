package org.ingestquarantine.app;

import java.time.Duration;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.NamedSqlStrategy;
import org.ingestquarantine.delivery.AttemptHeartbeat;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.AttemptLease;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.ClassifyFailure;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.DeliveryGuard;
import org.ingestquarantine.delivery.DlqSweeper;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.delivery.FailureDisposition;
import org.ingestquarantine.delivery.FailureStorm;
import org.ingestquarantine.delivery.InFlightAttempts;
import org.ingestquarantine.delivery.OpenCommit;
import org.ingestquarantine.delivery.Outcomes;
import org.ingestquarantine.delivery.PolicySkips;
import org.ingestquarantine.delivery.QuietRollbackHandler;
import org.ingestquarantine.delivery.ReleasingShutdownStrategy;
import org.ingestquarantine.delivery.SourcePauses;
import org.ingestquarantine.delivery.StageNotifier;
import org.ingestquarantine.delivery.StormThresholds;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.Rethrow;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.PayloadStores;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * Delivery: the attempt journal with its leases and heartbeat ({@code delivery.lease-ms},
 * {@code delivery.heartbeat-interval-ms}, {@code delivery.journal-open-commit}: {@link AttemptJournal},
 * {@link AttemptHeartbeat}), the redelivery budgets ({@code failure.<class>.*}: {@link RedeliveryPolicies}), the
 * consumer's circuit breaker ({@code db.probe-interval-ms}, {@code pipeline-fault.hold-ms}), the failure storm
 * ({@code storm.*}: {@link StormThresholds}), the delivery guard ({@code delivery.live-attempt-wait-ms}:
 * {@link DeliveryGuard}), the outcomes, and the shutdown that releases what is in flight.
 */
final class DeliveryWiring {

    private final Wiring w;
    private final ClassifyFailure classification = new ClassifyFailure(ErrorTaxonomy.standard());
    private final RedeliveryPolicies policies;
    private final InFlightAttempts inFlight = new InFlightAttempts();
    private AttemptJournal journal;
    private Duration heartbeat;

    DeliveryWiring(Wiring w) {
        this.w = w;
        this.policies = RedeliveryPolicies.fromProperties(w.settings()::find);
    }

    /** @return the attempt journal, its heartbeat started (and stopped with the context) */
    AttemptJournal startJournal(Database database) {
        Settings settings = w.settings();
        journal = new AttemptJournal(database.dataSource(), w.clock(),
                AttemptLease.forThisProcess(settings.requiredMillis("delivery.lease-ms")),
                OpenCommit.of(settings.required(OpenCommit.PROPERTY)));
        heartbeat = settings.requiredMillis("delivery.heartbeat-interval-ms");
        w.closeOnStop(AttemptHeartbeat.start(journal, heartbeat));
        return journal;
    }

    RedeliveryPolicies policies() {
        return policies;
    }

    InFlightAttempts inFlight() {
        return inFlight;
    }

    /**
     * The consumer's circuit breaker: the payload store down holds the consumer as the database down does (a
     * quarantine writes to both), and so does the embedding service down ({@code embed.openai.url}); a route
     * fault's hold does not hold up a stop. Also installs the stage notifier and the releasing shutdown.
     */
    ConsumerCircuitBreaker guard(Database database, PayloadStores payloads, StageWiring.Stages stages,
                                 BrokerAdapter broker, PipelineMetrics metrics) {
        Settings settings = w.settings();
        ConsumerCircuitBreaker breaker = new ConsumerCircuitBreaker(
                () -> database.reachableAfterOutage() && payloads.reachable(), classification,
                settings.requiredMillis("db.probe-interval-ms"), settings.requiredMillis("pipeline-fault.hold-ms"),
                metrics);
        EmbedderChoice.holdOnOutage(stages.embedder(), breaker); // and so does the embedding service down
        breaker.letGoWhen(inFlight::isStopping); // a route fault's hold does not hold up a stop
        w.context().getManagementStrategy().addEventNotifier(new StageNotifier(journal::stage));
        new ReleasingShutdownStrategy(inFlight, journal, broker, stages.fetches()::cancelAll,
                stages.fetches()::resume).install(w.context());
        return breaker;
    }

    /**
     * Binds the delivery beans the routes call and starts the failure storm (stopped with the context).
     *
     * @return the failure storm
     */
    FailureStorm bind(Database database, BrokerAdapter broker, ConsumerCircuitBreaker breaker,
                      PipelineMetrics metrics) {
        Settings settings = w.settings();
        w.bind("pipelineMetrics", metrics);
        w.bind("consumerCircuitBreaker", breaker);
        w.bind("redeliveryPolicies", policies);
        w.bind("classifyFailure", classification);
        FailureDisposition disposition = new FailureDisposition(policies, classification, inFlight, broker,
                settings.requiredMillis("pipeline-fault.hold-ms"));
        w.bind("failureDisposition", disposition);
        // a source whose deliveries storm with a fingerprint new to it is paused in every consumer (storm.*)
        FailureStorm storm = FailureStorm.start(StormThresholds.from(settings), new SourcePauses(database.dataSource(),
                w.clock()), new FailureStorm.Consumer(broker, inFlight, disposition, journal.lease().owner()),
                metrics, w.clock());
        w.closeOnStop(storm);
        w.bind("failureStorm", storm);
        w.bind("brokerAdapter", broker);
        w.bind("quietRollback", new QuietRollbackHandler());
        w.bind("rethrow", new Rethrow());
        w.bind("namedSqlStrategy", new NamedSqlStrategy());
        w.context().getPropertiesComponent().addOverrideProperty(QuarantineStore.RECORD_PARAMETERS_PROPERTY,
                Integer.toString(QuarantineStore.recordParameters()));
        w.bind("deliveryGuard", new DeliveryGuard(broker, journal, policies, inFlight, heartbeat,
                settings.requiredMillis("delivery.live-attempt-wait-ms"), metrics));
        PolicySkips skips = new PolicySkips(database.dataSource(), w.clock(), journal);
        w.bind("policySkips", skips);
        w.bind("outcomes", new Outcomes(journal, skips, metrics, inFlight, storm));
        return storm;
    }

    /**
     * Binds the DLQ sweeper: after a dead-lettered message's record could not be written, it waits
     * {@code dlq.sweep-backoff-initial-ms}, doubling per failure up to {@code dlq.sweep-backoff-max-ms}
     * ({@link DlqSweeper}).
     */
    void bindSweeper(QuarantineStore store, MessageReader reader, BrokerAdapter broker) {
        w.bind("dlqSweeper", new DlqSweeper(store, reader, broker, w.clock(),
                w.settings().requiredMillis("dlq.sweep-backoff-initial-ms"),
                w.settings().requiredMillis("dlq.sweep-backoff-max-ms")));
    }
}
