package org.ingestquarantine.boot;

import java.util.Properties;
import java.util.function.Predicate;
import org.apache.camel.spi.LoadablePropertiesSource;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;

/**
 * Spring's environment as a Camel properties source that can be listed, so that
 * {@code PropertiesComponent.loadProperties(filter)} sees every key Spring knows (camel-spring-boot only looks
 * single keys up). The wiring reads the configured sources ({@code sources.<name>.*}) that way. A key is listed
 * when an enumerable property source names it (properties and YAML files, {@code --key=value}, system
 * properties); its value is Spring's, so the precedence of Boot's sources holds. Environment variables are looked
 * up by key, not listed, as under Camel Main.
 */
final class SpringEnvironmentSource implements LoadablePropertiesSource {

    private final ConfigurableEnvironment environment;

    SpringEnvironmentSource(ConfigurableEnvironment environment) {
        this.environment = environment;
    }

    @Override
    public String getName() {
        return "spring-environment";
    }

    @Override
    public String getProperty(String name) {
        return environment.getProperty(name);
    }

    @Override
    public Properties loadProperties() {
        return loadProperties(key -> true);
    }

    @Override
    public Properties loadProperties(Predicate<String> filter) {
        Properties properties = new Properties();
        environment.getPropertySources().stream()
                .filter(source -> source instanceof EnumerablePropertySource<?>)
                .flatMap(source -> java.util.Arrays.stream(((EnumerablePropertySource<?>) source).getPropertyNames()))
                .filter(filter)
                .distinct()
                .forEach(key -> {
                    String value = environment.getProperty(key);
                    if (value != null) {
                        properties.setProperty(key, value);
                    }
                });
        return properties;
    }

    @Override
    public void reloadProperties(String location) {
    }
}
