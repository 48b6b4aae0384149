package org.ingestquarantine.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.service.ServiceSupport;
import org.ingestquarantine.broker.kafka.KafkaWiring;
import org.ingestquarantine.broker.rabbitmq.RabbitMqWiring;
import org.ingestquarantine.broker.sqs.SqsWiring;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.DeliveryGuard;
import org.ingestquarantine.delivery.DlqSweeper;
import org.ingestquarantine.delivery.FailureDisposition;
import org.ingestquarantine.delivery.Outcomes;
import org.ingestquarantine.delivery.QuietRollbackHandler;
import org.ingestquarantine.delivery.StageTracker;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.Rethrow;
import org.ingestquarantine.ingest.ChunkStage;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.EmbedStage;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.Fetcher;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.ingest.IndexStage;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.ParseStage;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.ingest.Preflight;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.metrics.PipelineMetrics;
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
 * {@code db.password}, {@code db.port}, {@code db.connect-timeout-ms}, {@code broker.kind} (sqs |
 * rabbitmq | kafka), {@code sqs.mode} (embedded | external), {@code sqs.port}, {@code sqs.endpoint-url},
 * {@code sqs.region}, {@code sqs.queue}, {@code iq.broker-configs-dir}, {@code ingest.max-bytes},
 * {@code parse.mode} (pool | in-process; in-process only for debugging: a hostile document can then take
 * the consumer down), {@code chunk.max-chars}, {@code chunk.max-tokens} (default: the model's limit), {@code chunk.overlap-words}, {@code failure.<class>.*} (see
 * {@link RedeliveryPolicies}) and {@code parse.*} (see {@link ParseLimits}).
 */
public final class AppConfiguration implements CamelConfiguration {

    /** The brokers a profile can name in {@code broker.kind}. */
    private static final Map<String, BrokerWiring> BROKERS = Map.of(
            "sqs", new SqsWiring(), "rabbitmq", new RabbitMqWiring(), "kafka", new KafkaWiring());

    /** Default largest document accepted, bytes (100 MiB). */
    public static final long DEFAULT_MAX_BYTES = 100L * 1024 * 1024;

    @Override
    public void configure(CamelContext context) throws Exception {
        Settings settings = new Settings(context.getPropertiesComponent()::resolveProperty);
        Registry registry = context.getRegistry();
        Deque<AutoCloseable> started = new ArrayDeque<>();
        context.addService(new Stopper(started), true, true);

        Path dataDir = settings.path("iq.data-dir", "data");
        Database database = openDatabase(settings, registry, started, dataDir);
        Clock clock = Clock.systemUTC();

        ErrorClassifier classifier = ErrorClassifier.standard();
        RedeliveryPolicies policies = RedeliveryPolicies.fromProperties(settings::find);
        PipelineMetrics metrics = new PipelineMetrics(new SimpleMeterRegistry());
        AttemptJournal journal = new AttemptJournal(database.dataSource(), clock);
        QuarantineStore store = new QuarantineStore(database.dataSource(),
                new LocalPayloadStore(dataDir.resolve("objects")), clock);
        BrokerAdapter broker = openBroker(new BrokerSetup(settings, registry, started::push, journal, store));

        FolderConnector folder = new FolderConnector();
        long maxBytes = settings.number("ingest.max-bytes", DEFAULT_MAX_BYTES);
        Embedder embedder = new MiniLmEmbedder();
        WindowChunker chunker = chunker(settings, embedder);
        PipelineVersions versions = new PipelineVersions(folder.version() + "+" + HttpConnector.VERSION, ParserVersion.CURRENT, chunker.version(),
                embedder.version());
        ParseLimits limits = parseLimits(settings);
        DocumentParser parser = "in-process".equals(settings.string("parse.mode", "pool"))
                ? new InProcessPdfParser(limits) : new WorkerPoolParser(limits);
        started.push(parser);

        DocumentIndex index = new DocumentIndex(database.dataSource(), embedder.dimensions());
        StageTracker stages = new StageTracker(journal);
        Duration httpTimeout = settings.millis("http.timeout-ms", Duration.ofMillis(HttpConnector.DEFAULT_TIMEOUT_MS));
        Preflight preflight = new Preflight(connectors(settings, database, httpTimeout), maxBytes);
        ConsumerCircuitBreaker breaker = new ConsumerCircuitBreaker(database::isReachable, classifier,
                settings.millis("db.probe-interval-ms", Duration.ofSeconds(1)));

        registry.bind("pipelineMetrics", metrics);
        registry.bind("consumerCircuitBreaker", breaker);
        registry.bind("errorClassifier", classifier);
        registry.bind("failureDisposition", new FailureDisposition(policies, classifier));
        registry.bind("brokerAdapter", broker);
        registry.bind("quietRollback", new QuietRollbackHandler());
        registry.bind("rethrow", new Rethrow());
        registry.bind("deliveryGuard", new DeliveryGuard(broker, journal, policies));
        registry.bind("messageReader", new MessageReader());
        registry.bind("stageTracker", stages);
        registry.bind("preflight", preflight);
        registry.bind("fetcher", new Fetcher(preflight, index, versions, dataDir.resolve("work"), maxBytes));
        registry.bind("parseStage", new ParseStage(parser));
        registry.bind("chunkStage", new ChunkStage(chunker));
        registry.bind("embedStage", new EmbedStage(embedder));
        registry.bind("indexStage", new IndexStage(index, versions));
        registry.bind("outcomes", new Outcomes(stages, metrics));
        registry.bind("quarantineStore", store);
        registry.bind("documentIndex", index);
        registry.bind("quarantineQueries", new QuarantineQueries(database.dataSource()));
        registry.bind("sourceTotals", new SourceTotals(database.dataSource(), clock));
        registry.bind("dlqSweeper", new DlqSweeper(store, broker));
        registry.bind("quarantineRecorder", new QuarantineRecorder(store, classifier, versions, metrics));
    }

    /** @return the chunker of {@code chunk.*} for the embedder's tokens */
    static WindowChunker chunker(Settings settings, Embedder embedder) {
        return new WindowChunker(
                (int) settings.number("chunk.max-chars", WindowChunker.DEFAULT_MAX_CHARS),
                (int) settings.number("chunk.max-tokens", embedder.maxTokens()),
                (int) settings.number("chunk.overlap-words", WindowChunker.DEFAULT_OVERLAP_WORDS), embedder::countTokens);
    }

    /**
     * The source connectors by URI scheme, each taking a token of its origin's shared bucket before every HEAD
     * and GET when {@code source-requests.max-per-s} is set (the drain draws from the same buckets).
     */
    static Map<String, SourceConnector> connectors(Settings settings, Database database, Duration httpTimeout) {
        Map<String, SourceConnector> connectors = Map.of("file", new FolderConnector(),
                "http", new HttpConnector("http", httpTimeout), "https", new HttpConnector("https", httpTimeout));
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
