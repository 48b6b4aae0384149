package org.ingestquarantine.pipeline;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * Typed reads of the application's properties ({@code application.properties}, the profile's file, system
 * properties and environment, in Camel Main's order). Defaults are stated once, in the properties files
 * with their unit; code reads such keys with the {@code required} forms, and the {@code fallback} forms are
 * for keys that are optional by nature. A malformed or missing required value fails start-up with a
 * message naming the property.
 */
public final class Settings {

    private final Function<String, Optional<String>> lookup;

    /**
     * @param lookup finds a property's raw value by name, empty when unset (with Camel:
     *     {@code PropertiesComponent::resolveProperty})
     */
    public Settings(Function<String, Optional<String>> lookup) {
        this.lookup = lookup;
    }

    /**
     * @param key property name
     * @return its value, if set and not blank
     */
    public Optional<String> find(String key) {
        return lookup.apply(key).map(String::trim).filter(v -> !v.isEmpty());
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
        return find(key).map(v -> parse(key, v)).orElse(fallback);
    }

    /**
     * @param key property name
     * @return the value
     * @throws IllegalStateException when unset or not a whole number
     */
    public long requiredNumber(String key) {
        return parse(key, required(key));
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
     * @param key property name ending in {@code -ms}
     * @return the value as a duration
     * @throws IllegalStateException when unset or not a whole number
     */
    public Duration requiredMillis(String key) {
        return Duration.ofMillis(requiredNumber(key));
    }

    /**
     * @param key property name
     * @param fallback value when unset
     * @return the value as a path
     */
    public Path path(String key, String fallback) {
        return Path.of(string(key, fallback));
    }

    private static long parse(String key, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("property " + key + " must be a whole number, was '" + value + "'");
        }
    }
}
