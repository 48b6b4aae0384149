package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * One topic as described by a file in {@code broker-configs/kafka/}: a properties file with {@code name},
 * {@code partitions}, {@code replication.factor}, and topic-level configs under the prefix
 * {@code config.} (so {@code config.retention.ms=604800000} becomes the topic config {@code retention.ms}).
 *
 * @param configs topic-level configs without the {@code config.} prefix, sorted by key
 */
public record KafkaTopicSpec(String name, int partitions, short replicationFactor, Map<String, String> configs) {
    /** Prefix of the keys that are topic-level configs. */
    public static final String CONFIG_PREFIX = "config.";
    /** The folder of topic files, relative to the project root. */
    public static final Path DIRECTORY = Path.of("broker-configs", "kafka");

    /** Reads {@code broker-configs/kafka/<topic>.properties} relative to the working directory. */
    public static KafkaTopicSpec forTopic(String topic) {
        return load(DIRECTORY.resolve(topic + ".properties"));
    }

    /** Reads one topic file; a missing {@code name}, {@code partitions} or {@code replication.factor} throws. */
    public static KafkaTopicSpec load(Path file) {
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read topic file " + file.toAbsolutePath(), e);
        }
        Map<String, String> configs = new TreeMap<>();
        p.stringPropertyNames().stream()
                .filter(k -> k.startsWith(CONFIG_PREFIX))
                .forEach(k -> configs.put(k.substring(CONFIG_PREFIX.length()), p.getProperty(k).trim()));
        return new KafkaTopicSpec(required(p, "name", file), Integer.parseInt(required(p, "partitions", file)),
                Short.parseShort(required(p, "replication.factor", file)), Map.copyOf(configs));
    }

    private static String required(Properties p, String key, Path file) {
        String value = p.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(file + " lacks the key " + key);
        }
        return value.trim();
    }
}
