package org.ingestquarantine.boot;

import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Spring Boot entry point: {@code java -jar ingest-quarantine-boot.jar [--spring.profiles.active=P]
 * [--iq.data-dir=D] [--management.server.port=N]} runs the long-running consumer (what {@code run} does under
 * Camel Main) with the same routes, beans ({@link PipelineConfiguration} over {@code app.AppConfiguration}) and
 * properties files. The profile defaults to {@value #DEFAULT_PROFILE}; the operator commands stay in the CLI.
 *
 * <p>Boot's own DataSource, Flyway and RabbitMQ auto-configuration make those clients ({@code spring.*} keys, ours
 * as aliases: {@link DatabaseConfiguration}, {@link PipelineConfiguration}); the wiring uses them. SIGTERM and
 * SIGINT close the application context (the web server, then Camel's graceful shutdown) and then exit 0, as
 * {@code run} does under Camel Main; a JVM left to its own SIGTERM handling does not exit 0.
 */
@SpringBootApplication
public class BootApplication {

    /** The profile when none is active, as under Camel Main. */
    public static final String DEFAULT_PROFILE = "embedded";
    /** Spring Boot's launcher that starts any main class named by {@code -Dloader.main} from the executable jar. */
    static final String BOOT_LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher";

    /**
     * @param args Spring Boot's command line ({@code --key=value} properties)
     */
    public static void main(String[] args) {
        if (runsFromExecutableJar()) {
            // the parser's worker JVMs get this JVM's class path, the one jar: they start through Boot's launcher
            System.setProperty(WorkerPoolParser.WORKER_LAUNCHER_PROPERTY, BOOT_LAUNCHER);
        }
        SpringApplication app = new SpringApplication(BootApplication.class);
        app.setDefaultProperties(defaults());
        AtomicReference<ConfigurableApplicationContext> started = new AtomicReference<>();
        AtomicBoolean stopping = new AtomicBoolean();
        PipelineApp.onStopSignal(() -> {
            if (stopping.compareAndSet(false, true)) {
                // a thread of its own: the signal handler returns at once
                new Thread(() -> System.exit(exitCode(started.get())), "boot-stop").start();
            }
        });
        started.set(app.run(args));
    }

    /**
     * @param context the started application, or null while it starts (Boot's shutdown hook then closes it)
     * @return Boot's exit code once the context is closed: the web server, then Camel's graceful shutdown; 0
     *     unless an {@code ExitCodeGenerator} says otherwise
     */
    static int exitCode(ConfigurableApplicationContext context) {
        return context == null ? 0 : SpringApplication.exit(context);
    }

    /** @return the properties below every other source: the profile when none is given */
    public static Map<String, Object> defaults() {
        return Map.of("spring.profiles.default", DEFAULT_PROFILE);
    }

    /** @return whether the application's classes come from a jar nested in Boot's executable jar */
    static boolean runsFromExecutableJar() {
        var source = WorkerPoolParser.class.getProtectionDomain().getCodeSource();
        return source != null && source.getLocation().toString().startsWith("jar:nested:");
    }
}
