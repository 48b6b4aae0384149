package org.ingestquarantine.app;

import java.nio.file.Path;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.apache.camel.main.Main;

/**
 * The application: Camel Main with the YAML routes, configured by {@link AppConfiguration} for one
 * profile. Started by the launcher's commands and by tests.
 */
public final class PipelineApp implements AutoCloseable {

    private final Main main;

    private PipelineApp(Main main) {
        this.main = main;
    }

    /**
     * @param profile the profile: embedded, sqs, rabbitmq or kafka
     * @param dataDir folder for the embedded database, payloads and work files
     * @param overrides further properties, which win over the profile's file (tests use these)
     * @return the started application, consuming
     * @throws Exception when start-up fails; a database that cannot be reached gives a
     *     {@link DatabaseUnavailableException} in the cause chain
     */
    public static PipelineApp start(String profile, Path dataDir, Map<String, String> overrides) throws Exception {
        Main main = configure(profile, dataDir, overrides);
        main.start();
        return new PipelineApp(main);
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
        Main main = configure(profile, dataDir, overrides);
        // SIGTERM and SIGINT end run() normally (exit 0 after a graceful stop) instead of killing the JVM
        // from a shutdown hook (exit 143)
        for (String name : new String[] {"TERM", "INT"}) {
            sun.misc.Signal.handle(new sun.misc.Signal(name), signal -> main.completed());
        }
        main.run();
    }

    private static Main configure(String profile, Path dataDir, Map<String, String> overrides) {
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

    @Override
    public void close() throws Exception {
        main.stop();
    }
}
