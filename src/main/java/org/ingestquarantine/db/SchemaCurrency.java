package org.ingestquarantine.db;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.JarURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import javax.sql.DataSource;

/**
 * Whether a database's schema is already exactly what the bundled migrations ({@code classpath:db/migration})
 * make it, so that start-up can skip Flyway (about 1.5 s of class loading and classpath scanning on an
 * existing data folder, measured by {@code bench/startup-bench}). "Exactly" is Flyway's own validation: every
 * bundled versioned script applied successfully with the same checksum, every bundled repeatable script
 * ({@code R__summaries.sql}) last applied with its current checksum, and nothing else applied. Anything this check
 * cannot tell (a Java migration, an archive it cannot list, a missing history table, a newer or failed migration,
 * an edited script) answers "not current", and Flyway runs as before.
 *
 * <p>The checksum is Flyway's: CRC32 over the UTF-8 bytes of each line without its line break, a byte-order
 * mark removed ({@code org.flywaydb.core.internal.resolver.ChecksumCalculator}, Flyway 11);
 * {@code SchemaCurrencyIT} pins that the two agree.
 */
final class SchemaCurrency {

    /** Where the migrations are, as Flyway's location {@code classpath:db/migration}. */
    static final String LOCATION = "db/migration";
    private static final Pattern VERSIONED = Pattern.compile("V([0-9][0-9_.]*)__.+\\.sql");
    private static final Pattern REPEATABLE = Pattern.compile("R__(.+)\\.sql");
    /** Prefixes a repeatable migration's description, its key among the versions. */
    static final String REPEATABLE_KEY = "R:";

    private SchemaCurrency() {
    }

    /** @return whether the schema needs no migration; false whenever that cannot be told for sure */
    static boolean isCurrent(DataSource dataSource) {
        Optional<Map<String, Integer>> bundled = bundled();
        if (bundled.isEmpty() || bundled.get().isEmpty()) {
            return false;
        }
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rows = s.executeQuery("SELECT version, description, checksum, success, type"
                     + " FROM flyway_schema_history WHERE type <> 'SCHEMA' ORDER BY installed_rank")) {
            Map<String, Integer> applied = new HashMap<>();
            while (rows.next()) {
                String version = rows.getString(1);
                int checksum = rows.getInt(3);
                boolean noChecksum = rows.wasNull();
                if (noChecksum || !rows.getBoolean(4) || !"SQL".equals(rows.getString(5))) {
                    return false;
                }
                if (version == null) {
                    // a repeatable migration: Flyway applies it again when it changes; its last application counts
                    applied.put(REPEATABLE_KEY + rows.getString(2), checksum);
                } else if (applied.put(version, checksum) != null) {
                    return false;
                }
            }
            return applied.equals(bundled.get());
        } catch (SQLException e) {
            return false;  // no history table yet (a new database), or it cannot be read: Flyway decides
        }
    }

    /**
     * @return the bundled migrations to their checksums: a versioned one by Flyway's version text ({@code 6_1} is
     *     {@code 6.1}), a repeatable one by {@value #REPEATABLE_KEY} and Flyway's description ({@code R__summaries.sql}
     *     is {@code R:summaries}); empty when they cannot all be listed and read
     */
    static Optional<Map<String, Integer>> bundled() {
        try {
            Map<String, Integer> scripts = new HashMap<>();
            ClassLoader loader = SchemaCurrency.class.getClassLoader();
            Enumeration<URL> locations = loader.getResources(LOCATION);
            while (locations.hasMoreElements()) {
                for (String name : list(locations.nextElement())) {
                    Matcher m = VERSIONED.matcher(name);
                    Matcher r = REPEATABLE.matcher(name);
                    String key;
                    if (m.matches()) {
                        key = m.group(1).replace('_', '.');
                    } else if (r.matches()) {
                        key = REPEATABLE_KEY + r.group(1).replace('_', ' ');
                    } else {
                        return Optional.empty();  // other migrations: Flyway's business
                    }
                    try (InputStream in = loader.getResourceAsStream(LOCATION + "/" + name)) {
                        if (in == null || scripts.put(key, checksum(in)) != null) {
                            return Optional.empty();
                        }
                    }
                }
            }
            return Optional.of(scripts);
        } catch (IOException | URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** @return the file names directly in a {@code file:} folder or a {@code jar:} folder */
    private static java.util.List<String> list(URL location) throws IOException, URISyntaxException {
        if ("file".equals(location.getProtocol())) {
            try (Stream<Path> files = Files.list(Path.of(location.toURI()))) {
                return files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()).toList();
            }
        }
        if (!"jar".equals(location.getProtocol())) {
            throw new IOException("cannot list " + location);  // e.g. a nested archive: Flyway lists it
        }
        JarURLConnection connection = (JarURLConnection) location.openConnection();
        connection.setUseCaches(false);
        URI jar = connection.getJarFileURL().toURI();
        if (!"file".equals(jar.getScheme())) {
            throw new IOException("cannot list " + location);
        }
        java.util.List<String> names = new java.util.ArrayList<>();
        try (JarFile file = new JarFile(Path.of(jar).toFile())) {
            String prefix = LOCATION + "/";
            for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                String rest = entry.getName().startsWith(prefix) ? entry.getName().substring(prefix.length()) : "";
                if (!entry.isDirectory() && !rest.isEmpty() && !rest.contains("/")) {
                    names.add(rest);
                }
            }
        }
        return names;
    }

    /** Flyway's checksum of a script. */
    static int checksum(InputStream script) throws IOException {
        CRC32 crc = new CRC32();
        BufferedReader reader = new BufferedReader(new InputStreamReader(script, StandardCharsets.UTF_8), 4096);
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String text = line.startsWith("\uFEFF") ? line.substring(1) : line;
            crc.update(text.getBytes(StandardCharsets.UTF_8));
        }
        return (int) crc.getValue();
    }
}
