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
        Main main = new Main();
        main.configure().setProfile(profile);
        main.configure().addConfiguration(AppConfiguration.class);
        main.addOverrideProperty("iq.data-dir", dataDir.toString());
        overrides.forEach(main::addOverrideProperty);
        main.start();
        return new PipelineApp(main);
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

    /** Blocks until the application is stopped (SIGTERM, or {@link #close()} from another thread). */
    public void await() throws Exception {
        main.run();
    }

    @Override
    public void close() throws Exception {
        main.stop();
    }
}
