package org.ingestquarantine.app;

import org.ingestquarantine.metrics.SkippedCoverage;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.camel.CamelConfiguration;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.spi.Registry;
import org.apache.camel.support.service.ServiceSupport;
import org.ingestquarantine.broker.kafka.KafkaWiring;
import org.ingestquarantine.broker.rabbitmq.RabbitMqWiring;
import org.ingestquarantine.broker.sqs.SqsWiring;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.Installation;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.db.NamedSqlStrategy;
import org.ingestquarantine.delivery.AttemptHeartbeat;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.AttemptLease;
import org.ingestquarantine.delivery.OpenCommit;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.delivery.ClassifyFailure;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.delivery.DeliveryGuard;
import org.ingestquarantine.delivery.DlqSweeper;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.delivery.FailureDisposition;
import org.ingestquarantine.delivery.FailureStorm;
import org.ingestquarantine.delivery.SourcePauses;
import org.ingestquarantine.delivery.StormThresholds;
import org.ingestquarantine.delivery.InFlightAttempts;
import org.ingestquarantine.delivery.NoCamelRedelivery;
import org.ingestquarantine.delivery.Outcomes;
import org.ingestquarantine.delivery.PolicySkips;
import org.ingestquarantine.delivery.QuietRollbackHandler;
import org.ingestquarantine.delivery.ReleasingShutdownStrategy;
import org.ingestquarantine.delivery.StageNotifier;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.failure.Rethrow;
import org.ingestquarantine.ingest.ChunkStage;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.EmbedStage;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.FetchCancellation;
import org.ingestquarantine.ingest.Fetcher;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.ingest.HttpTimeouts;
import org.ingestquarantine.ingest.IndexStage;
import org.ingestquarantine.ingest.LanguageGuess;
import org.ingestquarantine.ingest.MessageReader;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.ingest.ParseStage;
import org.ingestquarantine.ingest.Preflight;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.S3Clients;
import org.ingestquarantine.ingest.S3Connector;
import org.ingestquarantine.ingest.SourceConnector;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.ingest.FolderLister;
import org.ingestquarantine.ingest.SourceListing;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.ingest.WindowChunker;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.ScrapeEndpoint;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.metrics.StoreGauges;
import org.ingestquarantine.operator.CanaryPolicy;
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParseLimits;
import org.ingestquarantine.parse.ParserVersion;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.PayloadStores;
import org.ingestquarantine.quarantine.QuarantineQueries;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.ingestquarantine.web.ApiLimits;
import org.ingestquarantine.web.OperatorApi;
import org.slf4j.LoggerFactory;

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
 * {@code sources.<name>.http-allow}, {@code sources.<name>.http-allow-private}, {@code sources.<name>.s3-allow}
 * (see {@link SourceAccess}; from
 * the properties files, the overrides and {@code -D}, not from environment variables),
 * {@code s3.endpoint-url}, {@code s3.region}, {@code s3.path-style-access} (see {@link S3Clients}),
 * {@code dlq.sweep-backoff-initial-ms}, {@code dlq.sweep-backoff-max-ms} (see {@link DlqSweeper}),
 * {@code management.host}, {@code management.port} (the scrape endpoint; 0 = any free port),
 * {@code storm.*} (see {@link StormThresholds}), {@code metrics.store-poll-ms}, {@code metrics.new-fingerprint-window-ms}, {@code operator.retention-age-days}
 * (see {@link StoreGauges}), {@value #SERVE_OPERATOR_API} with {@code operator.api-host}, {@code operator.api-port}
 * and {@code operator.api-token} (see {@link OperatorApi}), {@value #LIST_SOURCES} with
 * {@code sources.count-interval-ms} and {@code sources.count-max-documents} (see {@link SourceListing}),
 * {@code parse.mode} (pool | in-process; in-process only for debugging: a hostile document can then take
 * the consumer down), {@code chunk.max-chars}, {@code chunk.max-tokens} (default: {@code embed.max-tokens} - 2, the embedder's; tests only), {@code chunk.overlap-words}, {@code embed.threads}, {@code embed.batch-chunks}, {@code embed.max-tokens} (see
 * {@link MiniLmEmbedder}), {@code embed.provider} and {@code embed.openai.*} (see {@link EmbedderChoice}), {@code failure.<class>.*} (see
 * {@link RedeliveryPolicies}), {@code parse.*} (see {@link ParseLimits}), and {@code payload.*} with {@code s3.*}
 * (see {@link PayloadStores}).
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

    /** The brokers a profile can name in {@code broker.kind}, a new wiring per start. */
    private static final Map<String, java.util.function.Supplier<BrokerWiring>> BROKERS = Map.of(
            "sqs", SqsWiring::new, "rabbitmq", RabbitMqWiring::new, "kafka", KafkaWiring::new);

    @Override
    public void configure(CamelContext context) throws Exception {
        Settings settings = new Settings(context.getPropertiesComponent()::resolveProperty);
        Registry registry = context.getRegistry();
        RouteLogLevels.install(context); // a route's log step shows at INFO (routes/README.md)
        context.addLifecycleStrategy(new NoCamelRedelivery()); // routes created, consumers not started yet
        Deque<AutoCloseable> started = new ArrayDeque<>();
        Stopper stopper = new Stopper(started);
        context.addService(stopper, true, true);
        try {
            configure(context, settings, registry, started);
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

    private void configure(CamelContext context, Settings settings, Registry registry, Deque<AutoCloseable> started)
            throws Exception {
        Path dataDir = settings.path("iq.data-dir", "data");
        StartupTimeline timeline = timeline(registry);
        timeline.mark("configure");
        EmbeddedServices.requireChosen(settings); // before anything starts: the production artifact has none
        boolean localModel = EmbedderChoice.local(settings); // with openai only the tokenizer is used: one idle thread
        MiniLmModel model = EmbedderChoice.model(settings); // the model there, else refused before anything starts
        // the slow independent steps first, in the background: parser workers (JVM start and warm-up), the
        // tokenizer and the broker while the database starts
        ParseLimits limits = parseLimits(settings);
        boolean inProcess = "in-process".equals(settings.string("parse.mode", "pool"));
        CompletableFuture<DocumentParser> parserStart = inBackground("parse-workers", timeline,
                () -> inProcess ? new InProcessPdfParser(limits) : new WorkerPoolParser(limits));
        started.push(() -> parserStart.thenAccept(AppConfiguration::closeQuietly));
        // the broker's server and clients (ElasticMQ for the embedded default) need no database: they start too
        BrokerWiring brokerWiring = brokerWiring(settings);
        started.push(brokerWiring.startEarly(settings));
        int embedThreads = localModel ? (int) settings.requiredNumber("embed.threads") : 1;
        int embedBatch = (int) settings.requiredNumber("embed.batch-chunks");
        int embedMaxTokens = (int) settings.requiredNumber("embed.max-tokens");
        CompletableFuture<MiniLmEmbedder> embedderStart = inBackground("tokenizer", timeline,
                () -> new MiniLmEmbedder(embedThreads, embedBatch, embedMaxTokens, model));
        started.push(() -> embedderStart.thenAccept(AppConfiguration::closeQuietly));
        Database database = openDatabase(settings, registry, started, dataDir, timeline);
        Clock clock = Clock.systemUTC();

        ClassifyFailure classification = new ClassifyFailure(ErrorTaxonomy.standard());
        RedeliveryPolicies policies = RedeliveryPolicies.fromProperties(settings::find);
        SourceAccess sourceAccess = sourceAccess(context);
        // metric tags name only the configured sources (and _invalid_messages), whatever the messages or rows say
        SourceTags sourceTags = SourceTags.of(sourceAccess.sourceNames());
        PipelineMetrics metrics = new PipelineMetrics(timeline.time("metrics",
                () -> startMetrics(settings, registry, started, database, clock, sourceTags)), sourceTags);
        AttemptJournal journal = new AttemptJournal(database.dataSource(), clock,
                AttemptLease.forThisProcess(settings.requiredMillis("delivery.lease-ms")),
                OpenCommit.of(settings.required(OpenCommit.PROPERTY)));
        Duration heartbeat = settings.requiredMillis("delivery.heartbeat-interval-ms");
        started.push(AttemptHeartbeat.start(journal, heartbeat));
        PayloadStores payloads = PayloadStores.fromSettings(settings, dataDir);
        started.push(payloads);
        payloads.checkAtStart(); // a consumer that could not store evidence must not consume
        payloads.claim(Installation.id(database.dataSource())); // one database per payload store
        QuarantineStore store = new QuarantineStore(database.dataSource(), payloads,
                source -> settings.find("sources." + source + ".owner"), clock);
        InFlightAttempts inFlight = new InFlightAttempts();
        BrokerAdapter broker = timeline.time("broker", () -> brokerWiring.open(new BrokerSetup(settings,
                registry, started::push, journal, store, database.dataSource(), inFlight)));
        // a budget the broker's own dead-lettering would cut short is refused, naming the property (BrokerBackstop)
        broker.backstop().ifPresent(backstop -> backstop.checkBelow(policies));
        MiniLmEmbedder tokenizer = join(embedderStart);
        Embedder embedder = EmbedderChoice.choose(settings, tokenizer);

        HttpTimeouts http = httpTimeouts(settings);
        long maxBytes = settings.requiredNumber("ingest.max-bytes");
        WindowChunker chunker = chunker(settings, embedder);
        // stopping the context cancels the source requests in flight (ReleasingShutdownStrategy)
        FetchCancellation fetches = new FetchCancellation();
        Map<String, SourceConnector> connectors = connectors(settings, database, http, fetches);
        Map<String, String> connectorVersions = new TreeMap<>();
        connectors.forEach((scheme, c) -> connectorVersions.put(scheme, c.version()));
        PipelineVersions versions = new PipelineVersions(connectorVersions, ParserVersion.CURRENT, chunker.version(),
                embedder.version());
        DocumentParser parser = timeline.time("wait-parser", () -> join(parserStart));
        // not needed before the first chunk: loaded from here on, not competing with the steps above for the CPU
        long modelBegan = System.currentTimeMillis();
        if (localModel) {
            tokenizer.startLoading();
            tokenizer.modelLoaded().thenRun(() -> timeline.record("model", modelBegan, System.currentTimeMillis()));
        }
        registry.bind("documentParser", parser);

        DocumentIndex index = new DocumentIndex(database.dataSource(), embedder.dimensions());
        Preflight preflight = new Preflight(connectors, sourceAccess, maxBytes);
        // a message's source counts as its own only when this process is configured for it, as at preflight
        MessageReader reader = new MessageReader(sourceAccess::isConfigured);
        // the payload store down holds the consumer as the database down does (a quarantine writes to both)
        ConsumerCircuitBreaker breaker = new ConsumerCircuitBreaker(
                () -> database.reachableAfterOutage() && payloads.reachable(), classification,
                settings.requiredMillis("db.probe-interval-ms"), settings.requiredMillis("pipeline-fault.hold-ms"),
                metrics);
        EmbedderChoice.holdOnOutage(embedder, breaker); // and so does the embedding service (embed.openai.url) down
        breaker.letGoWhen(inFlight::isStopping); // a route fault's hold does not hold up a stop
        context.getManagementStrategy().addEventNotifier(new StageNotifier(journal::stage));
        new ReleasingShutdownStrategy(inFlight, journal, broker, fetches::cancelAll, fetches::resume).install(context);

        registry.bind("pipelineMetrics", metrics);
        registry.bind("consumerCircuitBreaker", breaker);
        registry.bind("redeliveryPolicies", policies);
        registry.bind("classifyFailure", classification);
        FailureDisposition disposition = new FailureDisposition(policies, classification, inFlight, broker,
                settings.requiredMillis("pipeline-fault.hold-ms"));
        registry.bind("failureDisposition", disposition);
        // a source whose deliveries storm with a fingerprint new to it is paused in every consumer (storm.*)
        FailureStorm storm = FailureStorm.start(StormThresholds.from(settings), new SourcePauses(database.dataSource(),
                clock), new FailureStorm.Consumer(broker, inFlight, disposition, journal.lease().owner()), metrics, clock);
        started.push(storm);
        registry.bind("failureStorm", storm);
        registry.bind("brokerAdapter", broker);
        registry.bind("quietRollback", new QuietRollbackHandler());
        registry.bind("rethrow", new Rethrow());
        registry.bind("namedSqlStrategy", new NamedSqlStrategy());
        context.getPropertiesComponent().addOverrideProperty(QuarantineStore.RECORD_PARAMETERS_PROPERTY,
                Integer.toString(QuarantineStore.recordParameters()));
        registry.bind("deliveryGuard", new DeliveryGuard(broker, journal, policies, inFlight, heartbeat,
                settings.requiredMillis("delivery.live-attempt-wait-ms"), metrics));
        registry.bind("messageReader", reader);
        registry.bind("preflight", preflight);
        registry.bind("fetcher", new Fetcher(preflight, dataDir.resolve("work"), maxBytes));
        registry.bind("parseStage", new ParseStage(parser));
        registry.bind("chunkStage", new ChunkStage(chunker));
        registry.bind("languageGuess", LanguageGuess.configured(settings)); // for a route author's language filter
        registry.bind("embedder", embedder);
        registry.bind("localModel", tokenizer); // with embed.provider=openai its weights stay unloaded
        registry.bind("embedStage", new EmbedStage(embedder));
        registry.bind("indexStage", new IndexStage(index, versions));
        PolicySkips skips = new PolicySkips(database.dataSource(), clock, journal);
        registry.bind("policySkips", skips);
        registry.bind("outcomes", new Outcomes(journal, skips, metrics, inFlight, storm));
        registry.bind("quarantineStore", store);
        registry.bind("documentIndex", index);
        registry.bind("quarantineQueries", new QuarantineQueries(database.dataSource(),
                SkippedCoverage.of(settings.required(SkippedCoverage.PROPERTY))));
        SourceTotals totals = new SourceTotals(database.dataSource(), clock);
        registry.bind("sourceTotals", totals);
        SourceListing listing = sourceListing(settings, sourceAccess, totals, database, started::push);
        Duration listEvery = settings.requiredMillis(SourceListing.INTERVAL_PROPERTY);
        if (Boolean.parseBoolean(settings.string(LIST_SOURCES, "false")) && !listEvery.isZero()) {
            started.push(listing.every(listEvery, sourceAccess::sourceNames));
        }
        registry.bind("dlqSweeper", new DlqSweeper(store, reader, broker, clock, settings.requiredMillis("dlq.sweep-backoff-initial-ms"),
                settings.requiredMillis("dlq.sweep-backoff-max-ms")));
        registry.bind("quarantineRecorder", new QuarantineRecorder(store, versions, metrics));
        if (Boolean.parseBoolean(settings.string(SERVE_OPERATOR_API, "false"))) {
            OperatorService service = new OperatorService(database.dataSource(), store, payloads, clock,
                    sourceAccess.sourceNames()).boundedTo((int) settings.requiredNumber("operator.unnamed-source-rows"))
                    .countingSkipped(SkippedCoverage.of(settings.required(SkippedCoverage.PROPERTY)))
                    .withSourceOwners(source -> settings.find("sources." + source + ".owner"));
            // canary drains from the page share the consumer's parse workers and embedder
            Drain canaryDrain = drainWiring(settings, database, parser, embedder, dataDir.resolve("work"))
                    .database(database.dataSource(), store).access(sourceAccess).build();
            OperatorActions actions = new OperatorActions(database.dataSource(),
                    new Dispositions(database.dataSource(), store, payloads, clock), clock,
                    settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY))
                    .withCanaries(() -> canaryDrain, CanaryPolicy.from(settings));
            startOperatorApi(settings, registry, started, new OperatorApi.Backend(service, actions,
                    new OperatorRegisters(database.dataSource()), new SourceCounts(service, listing, totals),
                    new org.ingestquarantine.operator.Storms(new SourcePauses(database.dataSource(), clock))));
        }
    }

    /** @return the timeline {@link PipelineApp} bound, or a new one (a context not started by it) */
    private static StartupTimeline timeline(Registry registry) {
        StartupTimeline bound = registry.lookupByNameAndType(StartupTimeline.BEAN, StartupTimeline.class);
        return bound != null ? bound : new StartupTimeline();
    }

    /**
     * Serves the operator API and page beside the consumer on {@code operator.api-host}:{@code operator.api-port},
     * binding the page's URL as {@value #OPERATOR_PAGE_URL}; without {@code operator.api-token} it serves nothing
     * and logs one line saying so (the consumer runs either way).
     *
     * @throws IllegalStateException if the port cannot be bound
     */
    private static void startOperatorApi(Settings settings, Registry registry, Deque<AutoCloseable> started,
                                         OperatorApi.Backend backend) {
        Optional<String> token = settings.find("operator.api-token").filter(t -> !t.isBlank());
        if (token.isEmpty()) {
            LoggerFactory.getLogger(AppConfiguration.class).warn("operator API and page not served: operator.api-token"
                    + " is not set (e.g. IQ_JAVA_OPTS=-Doperator.api-token=...)");
            return;
        }
        InetSocketAddress address = new InetSocketAddress(settings.required("operator.api-host"),
                (int) settings.requiredNumber("operator.api-port"));
        try {
            OperatorApi api = OperatorApi.start(address, backend, token.get(),
                    Duration.ofDays(settings.requiredNumber("operator.retention-age-days")), ApiLimits.from(settings));
            started.push(api);
            registry.bind(OPERATOR_PAGE_URL, "http://" + address.getHostString() + ":" + api.port() + "/");
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the operator API cannot listen on " + address.getHostString() + ":"
                    + address.getPort() + " (" + e.getMessage() + "); set operator.api-port to a free port");
        }
    }

    /**
     * Starts a slow start-up step on a thread of its own (the common pool has one thread on two cores), recording
     * its interval on the timeline under {@code step}.
     */
    private static <T> CompletableFuture<T> inBackground(String step, StartupTimeline timeline,
            java.util.concurrent.Callable<T> task) {
        return CompletableFuture.supplyAsync(() -> {
            long began = System.currentTimeMillis();
            try {
                return task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            } finally {
                timeline.record(step, began, System.currentTimeMillis());
            }
        }, runnable -> {
            Thread t = new Thread(runnable, step + "-start");
            t.setDaemon(true);
            t.start();
        });
    }

    /** @return what the background step started; its failure as the step threw it */
    private static <T> T join(CompletableFuture<T> start) throws Exception {
        try {
            return start.join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // stopping anyway
        }
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

    /**
     * @param closeLater takes what the listing opened (an S3 client) to close when its owner stops
     * @return the listing of the sources by every lister there is (a folder walk of {@code file-roots}, a
     *     ListObjectsV2 of {@code s3-allow}, bounded by {@value FolderLister#MAX_DOCUMENTS_PROPERTY})
     */
    static SourceListing sourceListing(Settings settings, SourceAccess access, SourceTotals totals, Database database,
                                       java.util.function.Consumer<AutoCloseable> closeLater) {
        long max = settings.requiredNumber(FolderLister.MAX_DOCUMENTS_PROPERTY);
        List<org.ingestquarantine.ingest.SourceLister> listers = new java.util.ArrayList<>();
        listers.add(new FolderLister(access, max));
        // an S3 client only where a source lists S3 (it needs a region); closed with its owner
        if (access.sourceNames().stream().anyMatch(s -> !access.s3Allow(s).isEmpty())) {
            software.amazon.awssdk.services.s3.S3Client client = S3Clients.forSources(settings, httpTimeouts(settings));
            closeLater.accept(client);
            listers.add(new org.ingestquarantine.ingest.S3Lister(access, client, sharedThrottle(settings, database), max));
        }
        return new SourceListing(listers, totals);
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
                (int) settings.requiredNumber("chunk.overlap-words"), embedder::countTokens,
                embedder::countTokensPerWord);
    }

    /**
     * The source connectors by URI scheme, each taking a token of its origin's shared bucket before every HEAD
     * and GET when {@code source-requests.max-per-s} is set (the drain draws from the same buckets).
     */
    static Map<String, SourceConnector> connectors(Settings settings, Database database, HttpTimeouts http) {
        return connectors(settings, database, http, new FetchCancellation());
    }

    /** The same, with HTTP requests that {@code fetches} can cancel. */
    static Map<String, SourceConnector> connectors(Settings settings, Database database, HttpTimeouts http,
                                                   FetchCancellation fetches) {
        return connectors(settings, http, fetches, sharedThrottle(settings, database));
    }

    /**
     * The same, taking tokens from {@code throttle}: the drain passes the shared buckets'
     * {@link SourceRequestThrottle#slackOnly()} view, so it takes only what the live connectors leave.
     */
    static Map<String, SourceConnector> connectors(Settings settings, HttpTimeouts http, FetchCancellation fetches,
                                                   SourceRequestThrottle throttle) {
        Map<String, SourceConnector> connectors = Map.of("file", new FolderConnector(http.bodyDeadline()),
                "http", new HttpConnector("http", http, fetches), "https", new HttpConnector("https", http, fetches));
        Map<String, SourceConnector> throttled = new java.util.HashMap<>();
        connectors.forEach((scheme, c) -> throttled.put(scheme, throttle.around(c)));
        // takes the tokens itself: a HEAD refused 403/404 is asked once more (S3Connector)
        throttled.put("s3", new S3Connector(() -> S3Clients.forSources(settings, http), http, throttle, fetches));
        return Map.copyOf(throttled);
    }

    /**
     * @return the shared bucket of source requests (the live path's priority view), or unlimited when
     *     {@code source-requests.max-per-s} is unset
     */
    /**
     * A drain wired as the pipeline is: the same connectors, taking only the slack of the shared request buckets
     * (the live connectors keep their reserve), the parser and embedder given, this configuration's chunker, the
     * index, their versions; each record asked for at {@code sources.<name>.base-uri} + doc_id when configured (an
     * override), else at the URI the record keeps, else as the folder connector last reported the source's root
     * ({@code source_totals}). The caller adds the store and where sources may be read.
     *
     * @param workDir where the drain's work files go
     */
    static Drain.Builder drainWiring(Settings settings, Database database, DocumentParser parser, Embedder embedder,
                                     Path workDir) {
        WindowChunker chunker = chunker(settings, embedder);
        Map<String, SourceConnector> connectors = connectors(settings, httpTimeouts(settings), new FetchCancellation(),
                sharedThrottle(settings, database).slackOnly());
        Map<String, String> connectorVersions = new TreeMap<>();
        connectors.forEach((scheme, c) -> connectorVersions.put(scheme, c.version()));
        PipelineVersions versions = new PipelineVersions(connectorVersions, ParserVersion.CURRENT, chunker.version(),
                embedder.version());
        SourceTotals totals = new SourceTotals(database.dataSource(), Clock.systemUTC());
        return Drain.builder().connectors(connectors)
                .pipeline(parser, chunker, embedder, new DocumentIndex(database.dataSource(), embedder.dimensions()),
                        versions)
                .baseUris(source -> settings.find("sources." + source + ".base-uri").map(java.net.URI::create))
                .fallbackUris(totals::baseUri)
                .throttle(SourceRequestThrottle.unlimited(),
                        settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY))
                .work(workDir, settings.requiredNumber("ingest.max-bytes"));
    }

    static SourceRequestThrottle sharedThrottle(Settings settings, Database database) {
        return settings.find("source-requests.max-per-s")
                .map(rate -> SourceRequestThrottle.sharedInPostgres(database.dataSource(), Double.parseDouble(rate),
                        settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY),
                        (int) settings.requiredNumber(SourceRequestThrottle.LIVE_RESERVE_PROPERTY)))
                .orElse(SourceRequestThrottle.unlimited());
    }

    /**
     * The one meter registry, bound as {@value MicrometerConstants#METRICS_REGISTRY_NAME} where camel-micrometer
     * (and Camel Main's {@code camel.metrics.*}) finds it, the store gauges and the scrape endpoint, whose URL
     * is bound as {@value #SCRAPE_URL} (unless {@value #SERVE_METRICS} is {@code false}: then neither).
     */
    private static PrometheusMeterRegistry startMetrics(Settings settings, Registry registry,
                                                        Deque<AutoCloseable> started, Database database, Clock clock,
                                                        SourceTags sourceTags)
            throws java.io.IOException {
        PrometheusMeterRegistry meters = registry.lookupByNameAndType(MicrometerConstants.METRICS_REGISTRY_NAME,
                PrometheusMeterRegistry.class);
        if (meters == null) {
            meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            registry.bind(MicrometerConstants.METRICS_REGISTRY_NAME, meters);
        }
        started.push(StoreGauges.start(database.dataSource(), sourceTags, meters, new StoreGauges.Windows(
                settings.requiredMillis("metrics.store-poll-ms"),
                settings.requiredMillis("metrics.new-fingerprint-window-ms"),
                Duration.ofDays(settings.requiredNumber("operator.retention-age-days"))),
                new QuarantineQueries(database.dataSource(),
                        SkippedCoverage.of(settings.required(SkippedCoverage.PROPERTY))), clock));
        if (Boolean.parseBoolean(settings.string(SERVE_METRICS, "true"))) {
            ScrapeEndpoint endpoint = ScrapeEndpoint.start(meters, settings.required("management.host"),
                    (int) settings.requiredNumber("management.port"));
            started.push(endpoint);
            registry.bind(SCRAPE_URL, endpoint.url().toString());
        }
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
                                         Path dataDir, StartupTimeline timeline) throws Exception {
        Database hosted = registry.lookupByNameAndType(HOSTED_DATABASE, Database.class);
        if (hosted != null) {
            // a host's pool, migrated by the host (Spring Boot's DataSource and Flyway): closed by the host
            EmbeddedPostgresService server = registry.lookupByNameAndType(HOSTED_POSTGRES, EmbeddedPostgresService.class);
            if (server != null) {
                started.push(HolderDatabase.publish(dataDir, server.jdbcUrl(), server.user(), server.password()));
            }
            registry.bind("dataSource", hosted.dataSource());
            return hosted;
        }
        Duration timeout = settings.millis(Database.CONNECT_TIMEOUT_PROPERTY,
                Duration.ofMillis(Database.DEFAULT_CONNECT_TIMEOUT_MS));
        Database database;
        EmbeddedPostgresService postgres = null;
        if ("embedded".equals(settings.string("db.mode", "embedded"))) {
            // stopped last, by the Stopper once the consumers are done (PipelineApp), never by zonky's exit hook
            EmbeddedPostgresService server = timeline.time("postgres", () -> EmbeddedPostgresService.start(
                    EmbeddedPostgresService.folderIn(dataDir), (int) settings.number("db.port", 0), false));
            started.push(server);
            registry.bind("embeddedPostgres", server);
            database = timeline.time("schema", () -> Database.open(server.jdbcUrl(), server.user(),
                    server.password(), timeout));
            postgres = server;
        } else {
            database = Database.open(settings.required(Database.URL_PROPERTY), settings.string("db.user", "postgres"),
                    settings.string("db.password", ""), timeout);
        }
        started.push(database);
        if (postgres != null) {
            // operator commands on the data folder this process holds connect to it (OperatorRuntime); the notice
            // goes first on stop, before the database
            started.push(HolderDatabase.publish(dataDir, postgres.jdbcUrl(), postgres.user(), postgres.password()));
        }
        registry.bind("database", database);
        // the quarantine route's sql: endpoint writes through this pool
        registry.bind("dataSource", database.dataSource());
        return database;
    }

    private static BrokerWiring brokerWiring(Settings settings) {
        String kind = settings.required("broker.kind");
        java.util.function.Supplier<BrokerWiring> wiring = BROKERS.get(kind);
        if (wiring == null) {
            throw new IllegalStateException("broker.kind=" + kind + " is unknown; use one of " + BROKERS.keySet());
        }
        return wiring.get();
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
        Stopper stopper = context == null ? null : context.hasService(Stopper.class);
        if (stopper != null) {
            stopper.stopAll();
        }
    }

    /**
     * Closes what {@link #configure} started, newest first, when the context stops (after its routes: the
     * consumers have finished or handed back their documents), so the broker (the embedded SQS store) closes
     * before the database and the embedded PostgreSQL last. One that fails to close does not keep the others
     * open; the first failure is thrown after all were tried.
     */
    private static final class Stopper extends ServiceSupport {

        private final Deque<AutoCloseable> started;

        Stopper(Deque<AutoCloseable> started) {
            this.started = started;
        }

        @Override
        protected void doStop() throws Exception {
            stopAll();
        }

        /** Closes all that is left to close; once closed, each is forgotten, so a second call does nothing. */
        synchronized void stopAll() throws Exception {
            Exception first = null;
            while (!started.isEmpty()) {
                try {
                    started.pop().close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }
}
