package org.ingestquarantine.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.camel.CamelContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Boot application started as {@code java -jar} starts it ({@link BootApplication}'s defaults, the profile
 * and every property as {@code --key=value}), for tests that stop it themselves. Closing it is what SIGTERM does.
 */
public final class BootRun implements AutoCloseable {

    private final ConfigurableApplicationContext context;

    private BootRun(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /**
     * @param profile embedded, sqs, rabbitmq or kafka
     * @param properties {@code --key=value} arguments (e.g. a fixture's and {@code TestPipeline.testProperties()})
     * @return the started application, consuming; the web server on a free port
     */
    public static BootRun start(String profile, Map<String, String> properties) {
        List<String> args = new ArrayList<>();
        args.add("--spring.profiles.active=" + profile);
        args.add("--server.port=0");
        properties.forEach((k, v) -> args.add("--" + k + "=" + v));
        return new BootRun(new SpringApplicationBuilder(BootApplication.class)
                .properties(BootApplication.defaults()).run(args.toArray(String[]::new)));
    }

    /** @return the Camel context Spring Boot runs */
    public CamelContext camel() {
        return context.getBean(CamelContext.class);
    }

    /** @return Actuator on the web server's port */
    public Actuator actuator() {
        return Actuator.onPort(((WebServerApplicationContext) context).getWebServer().getPort());
    }

    /** Closes the application context: the web server, then Camel's graceful shutdown, as on SIGTERM. */
    @Override
    public void close() {
        context.close();
    }
}
