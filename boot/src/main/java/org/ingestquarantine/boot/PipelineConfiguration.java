package org.ingestquarantine.boot;

import java.net.URI;
import java.util.List;
import org.apache.camel.CamelContext;
import org.apache.camel.component.micrometer.MicrometerConstants;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.app.DataDirLock;
import org.ingestquarantine.app.PipelineApp;
import org.ingestquarantine.broker.rabbitmq.RabbitMqWiring;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.amqp.RabbitConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.context.annotation.PropertySource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.util.ErrorHandler;

/**
 * Runs the Camel Main wiring ({@link AppConfiguration}) on the Spring Boot Camel context, so both modes make
 * the same beans from the same properties, and publishes each bean it binds as a Spring singleton
 * ({@link SpringBeansBridge}): {@code @Autowired}, {@code getBean} and Actuator's indicators see them. The
 * database and the RabbitMQ connection are Boot's ({@link DatabaseConfiguration}, {@link #rabbitUriConnection}).
 * Spring reads {@code application.properties} and
 * {@code application-<profile>.properties} from the main jar for the active profile, and Camel resolves
 * every key through Spring's environment (so {@code application.yaml}, environment variables and
 * {@code --key=value} override them, as Boot users expect). The data folder is locked as {@code run} locks it
 * ({@link DatabaseConfiguration#dataDirLock}).
 * Boot-only settings (Actuator exposure, the web port) are in {@code ingest-quarantine-boot.properties}, below
 * every other source.
 */
@Configuration(proxyBeanMethods = false)
@PropertySource("classpath:ingest-quarantine-boot.properties")
public class PipelineConfiguration {

    /**
     * Boot's Prometheus registry is also {@value MicrometerConstants#METRICS_REGISTRY_NAME}, the name under which
     * {@link AppConfiguration} registers our meters, so /actuator/prometheus serves them with Camel's.
     *
     * @return the alias
     */
    @Bean
    static BeanFactoryPostProcessor metricsRegistryAlias() {
        return factory -> factory.registerAlias("prometheusMeterRegistry", MicrometerConstants.METRICS_REGISTRY_NAME);
    }

    /**
     * The RabbitMQ listeners' error handler as a Spring bean: camel-spring-rabbitmq-starter resolves
     * {@code camel.component.spring-rabbitmq.error-handler = #rabbitListenerErrors} (application-rabbitmq.properties)
     * among Spring's beans when it binds the component, before the wiring has bound its own (the same handler).
     *
     * @return the handler
     */
    @Bean(RabbitMqWiring.LISTENER_ERRORS)
    @Profile("rabbitmq")
    static ErrorHandler rabbitListenerErrors() {
        return RabbitMqWiring.listenerErrors();
    }

    /**
     * {@code rabbitmq.uri} as the connection of Boot's RabbitMQ auto-configuration while no {@code spring.rabbitmq.*}
     * connection key is set (an alias: {@link RabbitUriConnection}). Boot's {@code rabbitConnectionFactory} is then
     * the wiring's ({@link RabbitMqWiring#HOSTED_CONNECTION_FACTORY}).
     *
     * @param environment for {@code rabbitmq.uri}
     * @return the connection
     */
    @Bean
    @Conditional(RabbitUriConnection.Applies.class)
    static RabbitConnectionDetails rabbitUriConnection(Environment environment) {
        return new RabbitUriConnection(URI.create(environment.getRequiredProperty("rabbitmq.uri")));
    }

    /**
     * @param environment Spring's environment, for the active profile
     * @param beans Spring's bean factory, where the wiring's beans are published
     * @param lock the data folder's lock ({@link DatabaseConfiguration}), held before anything starts in it
     * @return the configuration applied to the Camel context before it starts
     */
    @Bean
    CamelContextConfiguration pipelineWiring(ConfigurableEnvironment environment, ConfigurableListableBeanFactory beans,
                                             DataDirLock lock) {
        String profile = brokerProfile(environment);
        return new CamelContextConfiguration() {
            @Override
            public void beforeApplicationStart(CamelContext context) {
                try {
                    context.getPropertiesComponent().addPropertiesSource(new SpringEnvironmentSource(environment));
                    new AppConfiguration().configure(context);
                } catch (Exception e) {
                    throw new IllegalStateException("cannot wire the " + profile + " profile: " + e.getMessage(), e);
                }
                SpringBeansBridge.publish(context, beans);
            }

            @Override
            public void afterApplicationStart(CamelContext context) {
            }
        };
    }

    /**
     * @return the one active profile of {@link PipelineApp#PROFILES}
     * @throws IllegalStateException when none or several of them are active
     */
    static String brokerProfile(Environment environment) {
        List<String> active = List.of(environment.getActiveProfiles().length > 0
                ? environment.getActiveProfiles() : environment.getDefaultProfiles());
        List<String> ours = active.stream().filter(PipelineApp.PROFILES::contains).toList();
        if (ours.size() != 1) {
            throw new IllegalStateException("spring.profiles.active must name exactly one of " + PipelineApp.PROFILES
                    + " (active: " + active + ")");
        }
        return ours.get(0);
    }
}
