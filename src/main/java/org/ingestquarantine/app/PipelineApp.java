package org.ingestquarantine.app;

import java.nio.file.Path;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.main.Main;
import org.ingestquarantine.broker.sqs.SqsWiring;
import org.ingestquarantine.delivery.ReleasingShutdownStrategy;
import org.slf4j.LoggerFactory;

/**
 * The application: Camel Main with the YAML routes, configured by {@link AppConfiguration} for one
 * profile. Started by the launcher's commands and by tests.
 */
public final class PipelineApp implements AutoCloseable {

    /** Profiles shipped with the application (application-<profile>.properties). */
    public static final java.util.List<String> PROFILES = java.util.List.of("embedded", "sqs", "rabbitmq", "kafka");

    private final Main main;
    private final DataDirLock lock;
    /** Stops the application if the JVM exits while it runs; removed by {@link #close()}. */
    private final Thread exitHook;

    private PipelineApp(Main main, DataDirLock lock) {
        this.main = main;
        this.lock = lock;
        this.exitHook = new Thread(this::closeOnExit, "iq-pipeline-stop");
    }

    /**
     * Starts the application. If the JVM exits while it runs (whatever the cause: a signal the caller did not
     * handle, {@code System.exit}), its one JVM shutdown hook stops it as {@link #close()} does: consumers
     * first, in-flight documents finished or released, then the broker and the database. The embedded
     * database and broker register no exit hooks of their own ({@code EmbeddedPostgresService},
     * {@code EmbeddedSqsServer}), so nothing stops under the consumers.
     *
     * @param profile the profile: embedded, sqs, rabbitmq or kafka
     * @param dataDir folder for the embedded database, payloads and work files
     * @param overrides further properties, which win over the profile's file (tests use these)
     * @return the started application, consuming
     * @throws Exception when start-up fails; a database that cannot be reached gives a
     *     {@link DatabaseUnavailableException} in the cause chain
     */
    public static PipelineApp start(String profile, Path dataDir, Map<String, String> overrides) throws Exception {
        DataDirLock lock = DataDirLock.acquire(dataDir);
        try {
            Main main = configure(profile, dataDir, overrides);
            StartupTimeline timeline = new StartupTimeline();
            main.bind(StartupTimeline.BEAN, timeline);
            PipelineApp app = new PipelineApp(main, lock);
            Runtime.getRuntime().addShutdownHook(app.exitHook);
            try {
                timeline.time("camel", () -> {
                    main.start();
                    return null;
                });
            } catch (Exception | Error e) {
                app.removeExitHook();
                stopAfterFailure(main, e);
                throw e;
            }
            timeline.mark("ready");
            timeline.log();
            return app;
        } catch (Exception | Error e) {
            lock.close();
            throw e;
        }
    }

    /**
     * Runs the application in the foreground until the JVM is asked to stop (SIGTERM, Ctrl-C): then the
     * consumer stops taking messages, in-flight documents finish within {@code camel.main.shutdown-timeout}
     * seconds, and nothing unfinished is acknowledged.
     *
     * @param profile the profile
     * @param dataDir folder for the embedded database, payloads and work files
     * @param overrides further properties
     * @throws Exception when start-up fails
     */
    public static void runUntilStopped(String profile, Path dataDir, Map<String, String> overrides) throws Exception {
        try (DataDirLock lock = DataDirLock.acquire(dataDir)) {
            Main main = configure(profile, dataDir, overrides);
            try {
                runLocked(main);
            } catch (Exception | Error e) {
                stopAfterFailure(main, e);
                throw e;
            }
            stop(main);
        }
    }

    /**
     * Makes SIGTERM and SIGINT (Ctrl-C) call {@code onSignal} instead of starting the JVM's exit, so a command
     * can stop its application in order (consumers, in-flight documents, broker, database) and then exit with
     * a code of its own. Exit hooks would run all at once, in no order, beside threads still working.
     *
     * @param onSignal what a signal does; runs on a thread of its own, should return quickly
     */
    public static void onStopSignal(Runnable onSignal) {
        for (String name : new String[] {"TERM", "INT"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> onSignal.run());
        }
    }

    private static void runLocked(Main main) throws Exception {
        // SIGTERM and SIGINT end run() normally (exit 0 after a graceful stop) instead of killing the JVM
        // from a shutdown hook (exit 143)
        onStopSignal(main::completed);
        main.addMainListener(new org.apache.camel.main.MainListenerSupport() {
            @Override
            public void afterStart(org.apache.camel.main.BaseMainSupport started) {
                CamelContext context = started.getCamelContext();
                String embeddedSqs = context.getRegistry().lookupByNameAndType(SqsWiring.EMBEDDED_ENDPOINT, String.class);
                String scrape = context.getRegistry().lookupByNameAndType(AppConfiguration.SCRAPE_URL, String.class);
                String page = context.getRegistry().lookupByNameAndType(AppConfiguration.OPERATOR_PAGE_URL, String.class);
                LoggerFactory.getLogger(PipelineApp.class).info("consuming ({}{}); metrics at {}{}; SIGTERM or Ctrl-C"
                        + " stops after the documents in flight", context.resolvePropertyPlaceholders(
                                "{{ingest.from-uri}}").replaceAll("\\?.*", ""),
                        embeddedSqs == null ? "" : ", embedded SQS endpoint " + embeddedSqs, scrape,
                        page == null ? "" : "; operator page and API at " + page);
            }
        });
        main.run();
    }

    /**
     * Stops Camel Main and then what {@link AppConfiguration} started: a Main or context whose start failed is
     * taken by Camel for stopped and its stop does nothing, which left the embedded PostgreSQL running (PPID 1)
     * after an unknown bean, field or component in a route.
     */
    private static void stop(Main main) throws Exception {
        try {
            main.stop();
        } finally {
            AppConfiguration.stopStarted(main.getCamelContext());
        }
    }

    /** {@link #stop}, after a failed start: what fails to stop is added to {@code failure}, which stays the error. */
    private static void stopAfterFailure(Main main, Throwable failure) {
        try {
            stop(main);
        } catch (Exception | Error e) {
            failure.addSuppressed(e);
        }
    }

    private static Main configure(String profile, Path dataDir, Map<String, String> overrides) {
        if (!PROFILES.contains(profile)) {
            throw new IllegalArgumentException("unknown profile '" + profile + "'; use one of " + PROFILES);
        }
        Main main = new Main();
        main.configure().setProfile(profile);
        main.configure().addConfiguration(AppConfiguration.class);
        main.addOverrideProperty("iq.data-dir", dataDir.toString());
        overrides.forEach(main::addOverrideProperty);
        return main;
    }

    /** @return the running Camel context */
    public CamelContext context() {
        return main.getCamelContext();
    }

    /**
     * @param name a bean name bound by {@link AppConfiguration}
     * @param type its type
     * @param <T> its type
     * @return the bean
     * @throws IllegalStateException when no such bean is bound
     */
    public <T> T bean(String name, Class<T> type) {
        T bean = context().getRegistry().lookupByNameAndType(name, type);
        if (bean == null) {
            throw new IllegalStateException("no bean '" + name + "' of type " + type.getSimpleName());
        }
        return bean;
    }

    /**
     * Stops taking deliveries, as a shutdown does, and returns once the documents in flight have finished or,
     * after {@code camel.main.shutdown-timeout} seconds, were released (their attempts closed, their messages
     * handed back). The database and the rest stay up until {@link #close()}.
     *
     * @throws Exception when the consumer route cannot be stopped
     */
    public void stopConsuming() throws Exception {
        context().getRouteController().stopRoute(ReleasingShutdownStrategy.CONSUMER_ROUTE);
    }

    /**
     * Stops the application: consumers first (in-flight documents finished within {@code camel.main.shutdown-timeout}
     * or released), then what it started, newest first (the broker before the database), then the data folder's lock.
     */
    @Override
    public void close() throws Exception {
        removeExitHook();
        try {
            stop(main);
        } finally {
            lock.close();
        }
    }

    private void closeOnExit() {
        try {
            stop(main);
            lock.close();
        } catch (Exception e) {
            LoggerFactory.getLogger(PipelineApp.class).warn("stopping at JVM exit failed: {}", e.toString());
        }
    }

    private void removeExitHook() {
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException exiting) {
            // the JVM is exiting: the hook runs (or ran) and stops the application itself
        }
    }
}
