package org.ingestquarantine.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.ingestquarantine.ingest.SourceAccess;
import org.ingestquarantine.pipeline.Settings;

/**
 * The application's properties without starting Camel, for commands that need only the database (the
 * operator commands). A key is looked up, first match wins, in: the given overrides (the command's own
 * options), system properties ({@code -Dkey=value}), environment variables named as Camel names them (upper
 * case, {@code .} and {@code -} as {@code _}, e.g. {@code DB_URL}), {@code application-<profile>.properties},
 * {@code application.properties}. Placeholders ({@code {{...}}}) are not resolved; the keys read here have none.
 */
public final class ProfileProperties {

    private ProfileProperties() {
    }

    /**
     * @param profile a profile of {@link PipelineApp#PROFILES}
     * @param overrides properties that win over the files (the command's own, e.g. {@code iq.data-dir})
     * @return typed reads of the merged properties
     * @throws IllegalArgumentException if the profile is unknown
     * @throws UncheckedIOException if a properties file cannot be read
     */
    public static Settings load(String profile, Map<String, String> overrides) {
        if (!PipelineApp.PROFILES.contains(profile)) {
            throw new IllegalArgumentException("unknown profile '" + profile + "'; use one of " + PipelineApp.PROFILES);
        }
        Properties merged = new Properties();
        read("application.properties", merged);
        read("application-" + profile + ".properties", merged);
        Map<String, String> own = Map.copyOf(overrides);
        return new Settings(key -> {
            if (own.containsKey(key)) {
                return Optional.of(own.get(key));
            }
            String system = System.getProperty(key);
            if (system != null) {
                return Optional.of(system);
            }
            String env = System.getenv(key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
            if (env != null) {
                return Optional.of(env);
            }
            return Optional.ofNullable(merged.getProperty(key));
        });
    }

    /**
     * @param profile a profile of {@link PipelineApp#PROFILES}
     * @param overrides properties that win over the files
     * @return the sources' trust settings ({@code sources.<name>.*}): files, then system properties, then overrides
     */
    public static SourceAccess sources(String profile, Map<String, String> overrides) {
        return SourceAccess.fromProperties(sourceProperties(profile, overrides));
    }

    /**
     * @param profile a profile of {@link PipelineApp#PROFILES}
     * @param overrides properties that win over the files
     * @return the {@code sources.<name>.*} properties: files, then system properties, then overrides
     */
    public static Properties sourceProperties(String profile, Map<String, String> overrides) {
        Properties merged = all(profile, overrides);
        Properties sources = new Properties();
        merged.stringPropertyNames().stream().filter(k -> k.startsWith(SourceAccess.PREFIX))
                .forEach(k -> sources.setProperty(k, merged.getProperty(k)));
        return sources;
    }

    /**
     * @param profile a profile of {@link PipelineApp#PROFILES}
     * @param overrides properties that win over the files
     * @return every property: {@code application.properties}, then the profile's file, then system properties,
     *     then overrides (placeholders not resolved)
     */
    public static Properties all(String profile, Map<String, String> overrides) {
        Properties merged = new Properties();
        read("application.properties", merged);
        read("application-" + profile + ".properties", merged);
        System.getProperties().stringPropertyNames().forEach(k -> merged.setProperty(k, System.getProperty(k)));
        overrides.forEach(merged::setProperty);
        return merged;
    }

    private static void read(String resource, Properties into) {
        try (InputStream in = ProfileProperties.class.getClassLoader().getResourceAsStream(resource)) {
            if (in != null) {
                into.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource + " from the classpath", e);
        }
    }
}
