package org.ingestquarantine.boot;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;

/**
 * Resolves Camel's placeholders ({@code {{key}}}, {@code {{key:default}}}) in {@code camel.*} values against
 * Spring's environment before camel-spring-boot binds them. Camel Main resolves them itself; camel-spring-boot
 * binds {@code camel.main.*} as Spring sees it, so {@code camel.main.routes-include-pattern =
 * file:{{iq.routes-dir:routes}}/*.camel.yaml} (application.properties) would otherwise name a folder called
 * {@code {{iq.routes-dir:routes}}}. The resolved values go into one property source above all others, holding
 * only keys whose effective value had a placeholder, so whichever source set the key still decides it.
 */
public final class CamelMainPlaceholders implements EnvironmentPostProcessor {

    /** Name of the property source holding the resolved values. */
    static final String SOURCE = "camelMainPlaceholdersResolved";
    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^{}:]+)(?::([^{}]*))?}}");

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        Map<String, Object> resolved = new HashMap<>();
        environment.getPropertySources().stream()
                .filter(source -> source instanceof EnumerablePropertySource<?>)
                .flatMap(source -> java.util.Arrays.stream(((EnumerablePropertySource<?>) source).getPropertyNames()))
                .filter(key -> key.startsWith("camel."))
                .distinct()
                .forEach(key -> {
                    String value = environment.getProperty(key);
                    if (value != null && value.contains("{{")) {
                        resolved.put(key, resolve(value, environment));
                    }
                });
        if (!resolved.isEmpty()) {
            environment.getPropertySources().addFirst(new MapPropertySource(SOURCE, resolved));
        }
    }

    /**
     * @return {@code value} with each {@code {{key[:default]}}} replaced by the key's value, else its default
     * @throws IllegalStateException when a key without default is not set
     */
    static String resolve(String value, ConfigurableEnvironment environment) {
        Matcher m = PLACEHOLDER.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String replacement = environment.getProperty(m.group(1).trim(), m.group(2) == null ? "" : m.group(2));
            if (m.group(2) == null && replacement.isEmpty()) {
                throw new IllegalStateException("property " + m.group(1) + " (in " + value + ") is not set");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }
}
