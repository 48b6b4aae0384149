package org.ingestquarantine.app;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.service.ServiceSupport;
import org.ingestquarantine.broker.kafka.KafkaWiring;
import org.ingestquarantine.broker.rabbitmq.RabbitMqWiring;
import org.ingestquarantine.broker.sqs.SqsWiring;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.db.Jdbc;
import org.ingestquarantine.delivery.AttemptHeartbeat;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.AttemptLease;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.delivery.ClassifyFailure;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.DeliveryGuard;
import org.ingestquarantine.delivery.DlqSweeper;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.delivery.FailureDisposition;
import org.ingestquarantine.delivery.Outcomes;
import org.ingestquarantine.delivery.QuietRollbackHandler;
import org.ingestquarantine.delivery.StageNotifier;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.Rethrow;
import org.ingestquarantine.ingest.ChunkStage;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.EmbedStage;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.Fetcher;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.ingest.HttpTimeouts;
import org.ingestquarantine.ingest.IndexStage;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.ParseStage;
import org.ingestquarantine.ingest.Preflight;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.ScrapeEndpoint;
import org.ingestquarantine.metrics.StoreGauges;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.LocalPayloadStore;
import org.ingestquarantine.quarantine.QuarantineQueries;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * Wires the application from its properties: database, broker, parser, stages, and the beans the route
 * files name. Everything it starts is stopped, in reverse order, when the Camel context stops.
 *
 * <p>Properties read here (defaults in {@code application.properties}; units in the names):
 * {@code iq.data-dir}, {@code db.mode} (embedded | external), {@code db.url}, {@code db.user},
 * {@code db.password}, {@code db.port}, {@code db.connect-timeout-ms}, {@code delivery.lease-ms},
 * {@code delivery.heartbeat-interval-ms}, {@code delivery.live-attempt-wait-ms} (see {@link AttemptJournal},
 * {@link AttemptHeartbeat}, {@link DeliveryGuard}), {@code broker.kind} (sqs |
 * rabbitmq | kafka), {@code sqs.mode} (embedded | external), {@code sqs.port}, {@code sqs.endpoint-url},
 * {@code sqs.region}, {@code sqs.queue}, {@code iq.broker-configs-dir}, {@code ingest.max-bytes},
 * {@code http.connect-timeout-ms}, {@code http.idle-timeout-ms}, {@code http.body-deadline-ms},
 * {@code http.max-redirects} (see {@link HttpTimeouts}), {@code sources.<name>.file-roots},
 * {@code sources.<name>.http-allow}, {@code sources.<name>.http-allow-private} (see {@link SourceAccess}; from
 * the properties files, the overrides and {@code -D}, not from environment variables),
 * {@code dlq.sweep-backoff-initial-ms}, {@code dlq.sweep-backoff-max-ms} (see {@link DlqSweeper}),
 * {@code management.host}, {@code management.port} (the scrape endpoint; 0 = any free port),
 * {@code metrics.store-poll-ms}, {@code metrics.new-fingerprint-window-ms}, {@code operator.retention-age-days}
 * (see {@link StoreGauges}),
 * {@code parse.mode} (pool | in-process; in-process only for debugging: a hostile document can then take
 * the consumer down), {@code chunk.max-chars}, {@code chunk.max-tokens} (default: the model's limit), {@code chunk.overlap-words}, {@code failure.<class>.*} (see
 * {@link RedeliveryPolicies}) and {@code parse.*} (see {@link ParseLimits}).
 */
public final class AppConfiguration implements CamelConfiguration {

    /** Name of the bound String: the Prometheus scrape URL, with the port actually taken. */
    public static final String SCRAPE_URL = "metricsScrapeUrl";

    /** The brokers a profile can name in {@code broker.kind}. */
    private static final Map<String, BrokerWiring> BROKERS = Map.of(
            "sqs", new SqsWiring(), "rabbitmq", new RabbitMqWiring(), "kafka", new KafkaWiring());

    @Override
    public void configure(CamelContext context) throws Exception {
        Settings settings = new Settings(context.getPropertiesComponent()::resolveProperty);
        Registry registry = context.getRegistry();
        Deque<AutoCloseable> started = new ArrayDeque<>();
        context.addService(new Stopper(started), true, true);

        Path dataDir = settings.path("iq.data-dir", "data");
        Database database = openDatabase(settings, registry, started, dataDir);
        Clock clock = Clock.systemUTC();

        ClassifyFailure classification = new ClassifyFailure(ErrorTaxonomy.standard());
        RedeliveryPolicies policies = RedeliveryPolicies.fromProperties(settings::find);
        PipelineMetrics metrics = new PipelineMetrics(startMetrics(settings, registry, started, database, clock));
        AttemptJournal journal = new AttemptJournal(database.dataSource(), clock,
                AttemptLease.forThisProcess(settings.requiredMillis("delivery.lease-ms")));
        Duration heartbeat = settings.requiredMillis("delivery.heartbeat-interval-ms");
        started.push(AttemptHeartbeat.start(journal, heartbeat));
        QuarantineStore store = new QuarantineStore(database.dataSource(),
                new LocalPayloadStore(dataDir.resolve("objects")), clock);
        BrokerAdapter broker = openBroker(new BrokerSetup(settings, registry, started::push, journal, store));

        FolderConnector folder = new FolderConnector();
        HttpTimeouts http = httpTimeouts(settings);
        long maxBytes = settings.requiredNumber("ingest.max-bytes");
        Embedder embedder = new MiniLmEmbedder();
        WindowChunker chunker = chunker(settings, embedder);
        Map<String, SourceConnector> connectors = connectors(settings, database, http);
        Map<String, String> connectorVersions = new TreeMap<>();
        connectors.forEach((scheme, c) -> connectorVersions.put(scheme, c.version()));
        PipelineVersions versions = new PipelineVersions(connectorVersions, ParserVersion.CURRENT, chunker.version(),
                embedder.version());
        ParseLimits limits = parseLimits(settings);
        DocumentParser parser = "in-process".equals(settings.string("parse.mode", "pool"))
                ? new InProcessPdfParser(limits) : new WorkerPoolParser(limits);
        started.push(parser);

        DocumentIndex index = new DocumentIndex(database.dataSource(), embedder.dimensions());
        Preflight preflight = new Preflight(connectors, sourceAccess(context), maxBytes);
        ConsumerCircuitBreaker breaker = new ConsumerCircuitBreaker(database::isReachable, classification,
                settings.requiredMillis("db.probe-interval-ms"));
        context.getManagementStrategy().addEventNotifier(new StageNotifier(journal::stage));

        registry.bind("pipelineMetrics", metrics);
        registry.bind("consumerCircuitBreaker", breaker);
        registry.bind("redeliveryPolicies", policies);
        registry.bind("classifyFailure", classification);
        registry.bind("failureDisposition", new FailureDisposition(policies, classification));
        registry.bind("brokerAdapter", broker);
        registry.bind("quietRollback", new QuietRollbackHandler());
        registry.bind("rethrow", new Rethrow());
        registry.bind("deliveryGuard", new DeliveryGuard(broker, journal, policies, heartbeat,
                settings.requiredMillis("delivery.live-attempt-wait-ms")));
        registry.bind("messageReader", new MessageReader());
        registry.bind("preflight", preflight);
        registry.bind("fetcher", new Fetcher(preflight, dataDir.resolve("work"), maxBytes));
        registry.bind("parseStage", new ParseStage(parser));
        registry.bind("chunkStage", new ChunkStage(chunker));
        registry.bind("embedStage", new EmbedStage(embedder, (int) settings.requiredNumber("embed.batch-chunks")));
        registry.bind("indexStage", new IndexStage(index, versions));
        registry.bind("outcomes", new Outcomes(journal, metrics));
        registry.bind("quarantineStore", store);
        registry.bind("documentIndex", index);
        registry.bind("quarantineQueries", new QuarantineQueries(database.dataSource()));
        registry.bind("sourceTotals", new SourceTotals(database.dataSource(), clock));
        registry.bind("dlqSweeper", new DlqSweeper(store, broker, clock, settings.requiredMillis("dlq.sweep-backoff-initial-ms"),
                settings.requiredMillis("dlq.sweep-backoff-max-ms")));
        registry.bind("quarantineRecorder", new QuarantineRecorder(store, versions, metrics));
    }

    /**
     * @return the sources of every property source Camel knows ({@code sources.<name>.*}), system
     *     properties ({@code -D}) winning over the files; a missing root fails start-up naming its property
     */
    private static SourceAccess sourceAccess(CamelContext context) {
        Properties p = context.getPropertiesComponent().loadProperties(k -> k.startsWith(SourceAccess.PREFIX));
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(SourceAccess.PREFIX))
                .forEach(k -> p.setProperty(k, System.getProperty(k)));
        return SourceAccess.fromProperties(p);
    }

    /** @return the HTTP connector's bounds, {@code http.*} */
    static HttpTimeouts httpTimeouts(Settings settings) {
        return new HttpTimeouts(settings.requiredMillis("http.connect-timeout-ms"),
                settings.requiredMillis("http.idle-timeout-ms"), settings.requiredMillis("http.body-deadline-ms"),
                (int) settings.requiredNumber("http.max-redirects"));
    }

    /** @return the chunker of {@code chunk.*} for the embedder's tokens */
    static WindowChunker chunker(Settings settings, Embedder embedder) {
        return new WindowChunker(
                (int) settings.requiredNumber("chunk.max-chars"),
                (int) settings.number("chunk.max-tokens", embedder.maxTokens()),
                (int) settings.requiredNumber("chunk.overlap-words"), embedder::countTokens);
    }

    /**
     * The source connectors by URI scheme, each taking a token of its origin's shared bucket before every HEAD
     * and GET when {@code source-requests.max-per-s} is set (the drain draws from the same buckets).
     */
    static Map<String, SourceConnector> connectors(Settings settings, Database database, HttpTimeouts http) {
        Map<String, SourceConnector> connectors = Map.of("file", new FolderConnector(),
                "http", new HttpConnector("http", http), "https", new HttpConnector("https", http));
        SourceRequestThrottle throttle = sharedThrottle(settings, database);
        Map<String, SourceConnector> throttled = new java.util.HashMap<>();
        connectors.forEach((scheme, c) -> throttled.put(scheme, throttle.around(c)));
        return Map.copyOf(throttled);
    }

    /** @return the shared bucket of source requests, or unlimited when {@code source-requests.max-per-s} is unset */
    static SourceRequestThrottle sharedThrottle(Settings settings, Database database) {
        return settings.find("source-requests.max-per-s")
                .map(rate -> SourceRequestThrottle.sharedInPostgres(database.dataSource(), Double.parseDouble(rate),
                        settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY)))
                .orElse(SourceRequestThrottle.unlimited());
    }

    /**
     * The one meter registry, bound as {@value MicrometerConstants#METRICS_REGISTRY_NAME} where camel-micrometer
     * (and Camel Main's {@code camel.metrics.*}) finds it, the store gauges and the scrape endpoint, whose URL
     * is bound as {@value #SCRAPE_URL}.
     */
    private static PrometheusMeterRegistry startMetrics(Settings settings, Registry registry,
                                                        Deque<AutoCloseable> started, Database database, Clock clock)
            throws java.io.IOException {
        PrometheusMeterRegistry meters = registry.lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME,
                PrometheusMeterRegistry.class);
        if (meters == null) {
            meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.bind(MicrometerConstants.METRICS_REGISTRY_NAME, meters);
        }
        started.push(StoreGauges.start(new Jdbc(database.dataSource()), meters, new StoreGauges.Windows(
                settings.requiredMillis("metrics.store-poll-ms"),
                settings.requiredMillis("metrics.new-fingerprint-window-ms"),
                Duration.ofDays(settings.requiredNumber("operator.retention-age-days"))), clock));
        ScrapeEndpoint endpoint = ScrapeEndpoint.start(meters, settings.required("management.host"),
                (int) settings.requiredNumber("management.port"));
        started.push(endpoint);
        registry.bind(SCRAPE_URL, endpoint.url().toString());
        return meters;
    }

    static ParseLimits parseLimits(Settings s) {
        ParseLimits d = ParseLimits.defaults();
        return d.withMaxHeapMb((int) s.number(ParseLimits.PROPERTY_MAX_HEAP_MB, d.maxHeapMb()))
                .withTimeout(s.millis(ParseLimits.PROPERTY_TIMEOUT_MS, d.timeout()))
                .withPoolSize((int) s.number(ParseLimits.PROPERTY_POOL_SIZE, d.poolSize()))
                .withMaxPages((int) s.number(ParseLimits.PROPERTY_MAX_PAGES, d.maxPages()))
                .withMaxStreamBytes(s.number(ParseLimits.PROPERTY_MAX_STREAM_BYTES, d.maxStreamBytes()))
                .withMaxImagePixels(s.number(ParseLimits.PROPERTY_MAX_IMAGE_PIXELS, d.maxImagePixels()))
                .withScratchMemoryBytes(s.number(ParseLimits.PROPERTY_SCRATCH_MEMORY_BYTES, d.scratchMemoryBytes()));
    }

    private static Database openDatabase(Settings settings, Registry registry, Deque<AutoCloseable> started,
                                         Path dataDir) {
        Duration timeout = settings.millis(Database.CONNECT_TIMEOUT_PROPERTY,
                Duration.ofMillis(Database.DEFAULT_CONNECT_TIMEOUT_MS));
        Database database;
        if ("embedded".equals(settings.string("db.mode", "embedded"))) {
            EmbeddedPostgresService postgres = EmbeddedPostgresService.start(dataDir.resolve("postgres"),
                    (int) settings.number("db.port", 0));
            started.push(postgres);
            registry.bind("embeddedPostgres", postgres);
            database = Database.open(postgres.jdbcUrl(), postgres.user(), postgres.password(), timeout);
        } else {
            database = Database.open(settings.required(Database.URL_PROPERTY), settings.string("db.user", "postgres"),
                    settings.string("db.password", ""), timeout);
        }
        started.push(database);
        registry.bind("database", database);
        // the quarantine route's sql: endpoint writes through this pool
        registry.bind("dataSource", database.dataSource());
        return database;
    }

    private static BrokerAdapter openBroker(BrokerSetup setup) throws Exception {
        String kind = setup.settings().required("broker.kind");
        BrokerWiring wiring = BROKERS.get(kind);
        if (wiring == null) {
            throw new IllegalStateException("broker.kind=" + kind + " is unknown; use one of " + BROKERS.keySet());
        }
        return wiring.open(setup);
    }

    /** Closes what {@link #configure} started, newest first, when the context stops. */
    private static final class Stopper extends ServiceSupport {

        private final Deque<AutoCloseable> started;

        Stopper(Deque<AutoCloseable> started) {
            this.started = started;
        }

        @Override
        protected void doStop() throws Exception {
            while (!started.isEmpty()) {
                started.pop().close();
            }
        }
    }
}
