package org.ingestquarantine.app;

import org.ingestquarantine.metrics.SkippedCoverage;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Optional;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.DatabaseUnavailableException;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.ingest.Embedder;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.ingest.SourceRequestThrottle;
import org.ingestquarantine.ingest.SourceRoots;
import org.ingestquarantine.ingest.SourceTotals;
import org.ingestquarantine.operator.CanaryPolicy;
import org.ingestquarantine.operator.Dispositions;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.operator.OperatorActions;
import org.ingestquarantine.operator.OperatorRegisters;
import org.ingestquarantine.operator.OperatorService;
import org.ingestquarantine.operator.SourceCounts;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.quarantine.PayloadStores;
import org.ingestquarantine.quarantine.PayloadStore;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * What the operator commands need, and nothing more: the database and the payload store of a data folder,
 * without broker, routes, model or parser workers. With {@code db.mode=embedded} (the embedded profile's
 * default) it connects to the database of the process holding the data folder ({@code run}, {@code ingest},
 * {@code serve}: see {@link DataDirClaim}), or, when none does, takes the folder's lock and starts the embedded
 * PostgreSQL kept in {@code <data-dir>/postgres}; with {@code db.mode=external} it connects to {@code db.url} and
 * takes no lock.
 * The payload store is the one {@code payload.store} names ({@link PayloadStores}: {@code <data-dir>/objects} by
 * default), and a record's object is reached where its URI says. Closing stops what it started, newest first.
 *
 * <p>Where sources may be read ({@code sources.<name>.*}) comes from the profile's properties, plus, for a
 * source they do not name, the folder an earlier {@code ingest <folder>} configured as its root on its command
 * line ({@link SourceRoots}): a drain reads where that ingest read, and nowhere a message named.
 */
public final class OperatorRuntime implements AutoCloseable {

    private final Deque<AutoCloseable> started;
    private final Settings settings;
    private final Path dataDir;
    private final Database database;
    private final SourceAccess sources;
    private final Map<String, Path> missingRoots;
    private final PayloadStore payloads;
    private final QuarantineStore store;
    private final OperatorService service;
    private final Optional<ProcessHandle> holder;
    private final java.util.Set<String> configuredSources;
    /** The drain of canaries from the API, once built; guarded by this. */
    private Drain canaryDrain;

    private OperatorRuntime(Deque<AutoCloseable> started, Settings settings, SourceAccess sources,
                            java.util.Set<String> configuredSources, Map<String, Path> missingRoots, Path dataDir,
                            Database database, Optional<ProcessHandle> holder) {
        this.holder = holder;
        this.sources = sources;
        this.configuredSources = java.util.Set.copyOf(configuredSources);
        this.missingRoots = missingRoots;
        this.started = started;
        this.settings = settings;
        this.dataDir = dataDir;
        this.database = database;
        PayloadStores stores = PayloadStores.fromSettings(settings, dataDir);
        started.push(stores);
        this.payloads = stores;
        Clock clock = Clock.systemUTC();
        this.store = new QuarantineStore(database.dataSource(), payloads, this::ownerOf, clock);
        this.service = new OperatorService(database.dataSource(), store, payloads, clock, configuredSources)
                .boundedTo((int) settings.requiredNumber("operator.unnamed-source-rows"))
                .countingSkipped(SkippedCoverage.of(settings.required(SkippedCoverage.PROPERTY)))
                .withSourceOwners(this::ownerOf);
    }

    /**
     * @param profile a profile of {@link PipelineApp#PROFILES}
     * @param dataDir the data folder (payload store; embedded database and lock with {@code db.mode=embedded})
     * @param overrides properties that win over the profile's
     * @return the open runtime; close it
     * @throws org.ingestquarantine.db.DatabaseUnavailableException if the database cannot be reached or migrated
     * @throws IllegalStateException if another process holds the data folder (embedded database) and names no
     *     database to connect to within {@code db.holder-wait-ms}, or a required property is missing
     * @throws IllegalArgumentException if the profile is unknown
     */
    public static OperatorRuntime open(String profile, Path dataDir, Map<String, String> overrides) throws Exception {
        Settings settings = ProfileProperties.load(profile, overrides);
        java.util.Properties configured = ProfileProperties.sourceProperties(profile, overrides);
        Deque<AutoCloseable> started = new ArrayDeque<>();
        try {
            Duration timeout = settings.requiredMillis(Database.CONNECT_TIMEOUT_PROPERTY);
            Database database;
            Optional<ProcessHandle> holder = Optional.empty();
            if ("embedded".equals(settings.required("db.mode"))) {
                DataDirClaim claim = DataDirClaim.of(dataDir, settings.requiredMillis(DataDirClaim.WAIT_PROPERTY),
                        settings.requiredMillis(DataDirClaim.POLL_PROPERTY));
                holder = claim.holder().flatMap(n -> ProcessHandle.of(n.pid()));
                database = openEmbedded(claim, settings, dataDir, started, timeout);
            } else {
                database = Database.open(settings.required(Database.URL_PROPERTY),
                        settings.string("db.user", "postgres"), settings.string("db.password", ""), timeout);
                started.push(database);
            }
            // a folder an earlier `ingest <folder>` configured on its command line, for sources the profile does not name
            Map<String, Path> recorded = new SourceRoots(database.dataSource(), Clock.systemUTC()).all();
            SourceAccess sources = SourceAccess.fromProperties(SourceRoots.withRecordedRoots(configured, recorded));
            java.util.Set<String> names = SourceAccess.namesIn(configured);
            names.addAll(sources.sourceNames());
            return new OperatorRuntime(started, settings, sources, names, SourceRoots.missing(configured, recorded),
                    dataDir, database, holder);
        } catch (Exception | Error e) {
            closeAll(started, e);
            throw e;
        }
    }

    /**
     * The data folder's embedded database: the one the process holding the folder runs and published
     * ({@link DataDirClaim}), connected to without a lock, or, when no process holds it, the folder's lock and an
     * embedded PostgreSQL started here, published in turn for other operator commands.
     */
    private static Database openEmbedded(DataDirClaim claim, Settings settings, Path dataDir,
                                         Deque<AutoCloseable> started, Duration timeout) {
        if (claim.holder().isPresent()) {
            HolderDatabase.Notice holder = claim.holder().get();
            Database database;
            try {
                database = Database.open(holder.jdbcUrl(), holder.user(), holder.password(), timeout);
            } catch (DatabaseUnavailableException e) {
                throw new DatabaseUnavailableException("data folder " + dataDir.toAbsolutePath() + " is in use by"
                        + " process " + holder.pid() + ", whose database at " + holder.jdbcUrl() + " did not answer"
                        + " (it may be stopping); try again", e);
            }
            started.push(database);
            return database;
        }
        EmbeddedServices.requirePostgres(settings); // the production artifact has none
        started.push(claim.lock().get());
        EmbeddedPostgresService postgres = EmbeddedPostgresService.start(EmbeddedPostgresService.folderIn(dataDir),
                (int) settings.number("db.port", 0));
        started.push(postgres);
        Database database = Database.open(postgres.jdbcUrl(), postgres.user(), postgres.password(), timeout);
        started.push(database);
        // removed first on close, before the database stops
        started.push(HolderDatabase.publish(dataDir, postgres.jdbcUrl(), postgres.user(), postgres.password()));
        return database;
    }

    private Optional<String> ownerOf(String source) {
        return settings.find("sources." + source + ".owner");
    }

    /** @return the operator's questions */
    public OperatorService service() {
        return service;
    }

    /**
     * @return the process holding the data folder whose database this runtime uses beside it; empty when this
     *     runtime holds the folder or the database is external
     */
    public Optional<ProcessHandle> holder() {
        return holder;
    }

    /** @return the merged properties of the profile */
    public Settings settings() {
        return settings;
    }

    /** @return the data folder */
    public Path dataDir() {
        return dataDir;
    }

    /** @return the migrated database */
    public Database database() {
        return database;
    }

    /** @return the payload stores: the configured one, and the local folder for older records */
    public PayloadStore payloads() {
        return payloads;
    }

    /**
     * Starts the sandboxed parser as the pipeline configures it ({@code parse.*} properties; pool mode only: an
     * operator re-parsing a hostile payload must not take its own JVM down).
     *
     * @return a started worker pool; close it
     * @throws IllegalStateException if the workers do not start
     */
    public DocumentParser openParser() {
        return new WorkerPoolParser(StageWiring.parseLimits(settings));
    }

    /**
     * A drain wired as the pipeline is: the same connectors (and shared request buckets), parse limits,
     * chunker, embedder and index; each record asked for at {@code sources.<name>.base-uri} + doc_id when
     * configured (an override), else at the URI the record keeps, else as the folder connector last reported the
     * source's root ({@code source_totals}).
     *
     * @param parser a started parser (see {@link #openParser()}); the caller closes it
     * @return the drain; its embedder is closed with this runtime
     */
    public Drain drain(DocumentParser parser) {
        MiniLmEmbedder tokenizer = new MiniLmEmbedder((int) settings.requiredNumber("embed.threads"),
                (int) settings.requiredNumber("embed.batch-chunks"), (int) settings.requiredNumber("embed.max-tokens"),
                EmbedderChoice.model(settings));
        started.push(tokenizer); // closed with the runtime, before the database
        Embedder embedder = EmbedderChoice.choose(settings, tokenizer);
        return DrainWiring.drain(settings, database, parser, embedder, workDir())
                .database(database.dataSource(), store)
                .access(sources, missingRoots)
                .build();
    }

    /**
     * The drain canary drains from the API run ({@link #actionsWithCanaries()}): built at the first one, its parse
     * workers and model started then (seconds) and closed with this runtime.
     */
    private synchronized Drain canaryDrain() {
        if (canaryDrain == null) {
            DocumentParser parser = openParser();
            started.push(parser);
            canaryDrain = drain(parser);
        }
        return canaryDrain;
    }

    /** @return where the operator's temporary files go: {@code <data-dir>/work} */
    public Path workDir() {
        return dataDir.resolve("work");
    }

    /** @return dispose, expire-payloads, erase and journal pruning */
    public Dispositions dispositions() {
        return new Dispositions(database.dataSource(), store, payloads, Clock.systemUTC());
    }

    /** @return the bulk actions (dispose, drain) with their trail entry, as the commands run them */
    public OperatorActions actions() {
        return new OperatorActions(database.dataSource(), dispositions(), Clock.systemUTC(),
                settings.requiredNumber(SourceRequestThrottle.HEADROOM_PROPERTY));
    }

    /**
     * @return {@link #actions()} able to run canary drains from the API ({@link CanaryPolicy}), on a drain built at
     *     the first one
     */
    public OperatorActions actionsWithCanaries() {
        return actions().withCanaries(this::canaryDrain, CanaryPolicy.from(settings));
    }

    /** @return the sources' totals: listed now by this configuration's listers, or stated */
    public SourceCounts sourceCounts() {
        SourceTotals totals = new SourceTotals(database.dataSource(), Clock.systemUTC());
        return new SourceCounts(service, SourceWiring.sourceListing(settings, sources, totals, database, started::push), totals);
    }

    /**
     * @return the records of sources no operator named, to list and re-key ({@code sources purge-unconfigured}),
     *     judged by {@link #configuredSources}
     */
    public org.ingestquarantine.operator.UnconfiguredSources unconfiguredSources() {
        return new org.ingestquarantine.operator.UnconfiguredSources(database.dataSource());
    }

    /** @return the source names this configuration names ({@code sources.<name>.*}) or an ingest recorded a root of */
    public java.util.Set<String> configuredSources() {
        return configuredSources;
    }

    /** @return each configured source's owner ({@code sources.<name>.owner}), sources without one left out */
    public java.util.SortedMap<String, String> configuredOwners() {
        return service.sourceOwners();
    }

    /**
     * @return {@code fingerprints remap}: open records of an older fingerprint algorithm recomputed from their
     *     stored stack traces, read from this process's payload stores
     */
    public org.ingestquarantine.operator.FingerprintRemap fingerprintRemap() {
        return new org.ingestquarantine.operator.FingerprintRemap(database.dataSource(), payloads);
    }

    /** @return the page's lists: a cohort's records, the unindexable register, the drain runs */
    public OperatorRegisters registers() {
        return new OperatorRegisters(database.dataSource());
    }

    /** @return the sources the failure-storm breaker paused: listed and resumed ({@code storm list}, {@code resume}) */
    public org.ingestquarantine.operator.Storms storms() {
        return new org.ingestquarantine.operator.Storms(
                new org.ingestquarantine.delivery.SourcePauses(database.dataSource(), Clock.systemUTC()));
    }

    /** @return the evidence records */
    public QuarantineStore store() {
        return store;
    }

    @Override
    public void close() throws Exception {
        closeAll(started, null);
    }

    private static void closeAll(Deque<AutoCloseable> started, Throwable cause) throws Exception {
        Exception first = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                } else if (first == null) {
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
