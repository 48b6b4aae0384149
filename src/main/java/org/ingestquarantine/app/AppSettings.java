package org.ingestquarantine.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.apache.camel.spi.PropertiesComponent;

/**
 * Typed reads of the application's properties ({@code application.properties}, the profile's file, system
 * properties and environment, in Camel Main's order). A malformed value fails start-up with a message
 * naming the property.
 */
public final class AppSettings {

    private final PropertiesComponent properties;

    /** @param properties Camel's properties component */
    public AppSettings(PropertiesComponent properties) {
        this.properties = properties;
    }

    /**
     * @param key property name
     * @return its value, if set and not blank
     */
    public Optional<String> find(String key) {
        return properties.resolveProperty(key).map(String::trim).filter(v -> !v.isEmpty());
    }

    /**
     * @param key property name
     * @param fallback value when unset
     * @return the value
     */
    public String string(String key, String fallback) {
        return find(key).orElse(fallback);
    }

    /**
     * @param key property name
     * @return the value
     * @throws IllegalStateException when unset
     */
    public String required(String key) {
        return find(key).orElseThrow(() -> new IllegalStateException("property " + key + " is required; set it in"
                + " application-<profile>.properties or as -D" + key + "=…"));
    }

    /**
     * @param key property name
     * @param fallback value when unset
     * @return the value
     * @throws IllegalStateException when it is not a whole number
     */
    public long number(String key, long fallback) {
        return find(key).map(v -> {
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IllegalStateException("property " + key + " must be a whole number, was '" + v + "'");
            }
        }).orElse(fallback);
    }

    /**
     * @param key property name ending in {@code -ms}
     * @param fallback value when unset
     * @return the value as a duration
     */
    public Duration millis(String key, Duration fallback) {
        return Duration.ofMillis(number(key, fallback.toMillis()));
    }

    /**
     * @param key property name
     * @param fallback value when unset
     * @return the value as a path
     */
    public Path path(String key, String fallback) {
        return Path.of(string(key, fallback));
    }
}
