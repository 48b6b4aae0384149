package org.ingestquarantine.app;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.NoCamelRedelivery;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceListing;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.PayloadStores;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * Wires the application from its properties, one feature's wiring after the other: the database
 * ({@link DatabaseWiring}), the meters ({@link MetricsWiring}), delivery ({@link DeliveryWiring}), the quarantine
 * ({@link QuarantineWiring}), the broker ({@link BrokerChoice}, {@code broker.kind}), the stages
 * ({@link StageWiring}), the sources ({@link SourceWiring}) and the operator API ({@link OperatorWiring}); each
 * names the properties it reads (defaults in {@code application.properties}, units in the names). It binds the
 * beans the route files name. Everything it starts is stopped, in reverse order, when the Camel context stops
 * ({@link StartedServices}).
 */
public final class AppConfiguration implements CamelConfiguration {

    /** Name of the bound String: the Prometheus scrape URL, with the port actually taken. */
    public static final String SCRAPE_URL = "metricsScrapeUrl";

    /**
     * Property that serves the meters at {@code management.host}:{@code management.port}/metrics; unset: {@code true}.
     * Spring Boot mode sets it {@code false} (its one endpoint is Actuator's /actuator/prometheus).
     */
    public static final String SERVE_METRICS = "iq.serve-metrics";

    /**
     * Property that makes the application serve the operator API and page ({@code true} from {@code run}; the
     * default {@code false} leaves {@code ingest} and the tests without it).
     */
    public static final String SERVE_OPERATOR_API = "iq.serve-operator-api";

    /**
     * Property that makes the application list its sources every {@value SourceListing#INTERVAL_PROPERTY}
     * ({@code true} from {@code run}; {@code ingest} counts its folder itself).
     */
    public static final String LIST_SOURCES = "iq.list-sources";

    /**
     * Name of a {@link Database} a host has bound before {@link #configure} runs (Spring Boot: its DataSource,
     * migrated by its Flyway): used instead of one opened from {@code db.*}, and left to the host to close.
     */
    public static final String HOSTED_DATABASE = "database";
    /** Name of the host's embedded PostgreSQL beside {@value #HOSTED_DATABASE}, published to operator commands. */
    public static final String HOSTED_POSTGRES = "embeddedPostgres";

    /** Name of the bound String: the operator page's URL when the API is served, with the port actually taken. */
    public static final String OPERATOR_PAGE_URL = "operatorPageUrl";

    @Override
    public void configure(CamelContext context) throws Exception {
        Settings settings = new Settings(context.getPropertiesComponent()::resolveProperty);
        Registry registry = context.getRegistry();
        RouteLogLevels.install(context); // a route's log step shows at INFO (routes/README.md)
        context.addLifecycleStrategy(new NoCamelRedelivery()); // routes created, consumers not started yet
        Deque<AutoCloseable> started = new ArrayDeque<>();
        StartedServices stopper = new StartedServices(started);
        context.addService(stopper, true, true);
        try {
            configure(new Wiring(context, settings, registry, started, settings.path("iq.data-dir", "data"),
                    timeline(registry), Clock.systemUTC()));
        } catch (Exception | Error e) {
            // Camel does not stop a context whose start failed here, so what was started (the embedded
            // PostgreSQL, the broker, the parse workers) is stopped now, not left running after the exit
            try {
                stopper.stopAll();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    private static void configure(Wiring w) throws Exception {
        Settings settings = w.settings();
        w.timeline().mark("configure");
        EmbeddedServices.requireChosen(settings); // before anything starts: the production artifact has none
        boolean localModel = EmbedderChoice.local(settings); // with openai only the tokenizer is used: one idle thread
        MiniLmModel model = EmbedderChoice.model(settings); // the model there, else refused before anything starts
        // the slow independent steps first, in the background: parser workers (JVM start and warm-up), the
        // tokenizer and the broker while the database starts
        CompletableFuture<DocumentParser> parserStart = StageWiring.startParser(w);
        // the broker's server and clients (ElasticMQ for the embedded default) need no database: they start too
        BrokerWiring brokerWiring = BrokerChoice.of(settings);
        w.closeOnStop(brokerWiring.startEarly(settings));
        CompletableFuture<MiniLmEmbedder> tokenizerStart = StageWiring.startTokenizer(w, localModel, model);
        Database database = DatabaseWiring.open(w);

        DeliveryWiring delivery = new DeliveryWiring(w);
        SourceAccess sourceAccess = SourceWiring.sourceAccess(w.context());
        // metric tags name only the configured sources (and _invalid_messages), whatever the messages or rows say
        PipelineMetrics metrics = MetricsWiring.start(w, database, SourceTags.of(sourceAccess.sourceNames()));
        AttemptJournal journal = delivery.startJournal(database);
        PayloadStores payloads = QuarantineWiring.payloads(w, database);
        QuarantineStore store = QuarantineWiring.store(w, database, payloads);
        BrokerAdapter broker = w.timeline().time("broker", () -> brokerWiring.open(new BrokerSetup(settings,
                w.registry(), w::closeOnStop, journal, store, database.dataSource(), delivery.inFlight())));
        // a budget the broker's own dead-lettering would cut short is refused, naming the property (BrokerBackstop)
        broker.backstop().ifPresent(backstop -> backstop.checkBelow(delivery.policies()));

        StageWiring.Stages stages = StageWiring.assemble(w, database, sourceAccess, tokenizerStart, parserStart,
                localModel);
        ConsumerCircuitBreaker breaker = delivery.guard(database, payloads, stages, broker, metrics);
        delivery.bind(database, broker, breaker, metrics);
        PipelineHealthChecks.bind(w, database, breaker, stages.parser());
        StageWiring.bind(w, stages);
        QuarantineWiring.bind(w, database, store, stages.versions(), metrics);
        SourceTotals totals = new SourceTotals(database.dataSource(), w.clock());
        w.bind("sourceTotals", totals);
        SourceListing listing = SourceWiring.listing(w, sourceAccess, totals, database);
        delivery.bindSweeper(store, stages.reader(), broker);
        OperatorWiring.serveIfAsked(w, database, store, payloads, sourceAccess, stages, listing, totals);
    }

    /** @return the timeline {@link PipelineApp} bound, or a new one (a context not started by it) */
    private static StartupTimeline timeline(Registry registry) {
        StartupTimeline bound = registry.lookupByNameAndType(StartupTimeline.BEAN, StartupTimeline.class);
        return bound != null ? bound : new StartupTimeline();
    }

    /**
     * Stops what {@link #configure} started on {@code context}, newest first, as the context's stop would: for a
     * start-up that failed after it (a route Camel cannot create: an unknown bean, field or component), where
     * Camel stops neither the context nor its services, so the embedded PostgreSQL, the broker and the parse
     * workers would outlive the process. Does nothing on a context it did not configure or already stopped.
     *
     * @param context the context {@link #configure} ran on, or null (Camel failed before creating one)
     * @throws Exception the first failure to close, after all were tried
     */
    public static void stopStarted(CamelContext context) throws Exception {
        StartedServices stopper = context == null ? null : context.hasService(StartedServices.class);
        if (stopper != null) {
            stopper.stopAll();
        }
    }
}
