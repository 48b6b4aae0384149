package org.ingestquarantine.boot;

import java.util.Map;
import org.ingestquarantine.parse.WorkerPoolParser;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.flyway.FlywayAutoConfiguration;
import org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration;

/**
 * The Spring Boot entry point: {@code java -jar ingest-quarantine-boot.jar [--spring.profiles.active=P]
 * [--iq.data-dir=D] [--management.server.port=N]} runs the long-running consumer (what {@code run} does under
 * Camel Main) with the same routes, beans ({@link PipelineConfiguration} over {@code app.AppConfiguration}) and
 * properties files. The profile defaults to {@value #DEFAULT_PROFILE}; the operator commands stay in the CLI.
 *
 * <p>Boot's own data source, Flyway and RabbitMQ auto-configuration stay off: the wiring makes those clients from
 * our properties, and a Spring bean named {@code dataSource} or {@code rabbitConnectionFactory} would shadow the
 * one it binds in the Camel registry (Camel looks up Spring's beans first).
 */
@SpringBootApplication(exclude = {DataSourceAutoConfiguration.class, FlywayAutoConfiguration.class,
        RabbitAutoConfiguration.class})
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
        app.run(args);
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
