package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A copy of the shipped {@code routes/} folder that a test edits as a route author would, and the production
 * consumer ({@code run}) started on it in its own JVM ({@code iq.routes-dir}), so that its exit code, its output and
 * what it leaves running after the exit are what a user sees.
 */
public final class RoutesCopy {

    /** How long a start-up on this shared machine may take, to its failure or to its first route's work. */
    public static final Duration START_LIMIT = Duration.ofSeconds(180);

    private final Path folder;

    private RoutesCopy(Path folder) {
        this.folder = folder;
    }

    /**
     * @param into a fresh folder; the copy is made in {@code <into>/routes}
     * @return a copy of every shipped route file
     * @throws IOException when the copy fails
     */
    public static RoutesCopy of(Path into) throws IOException {
        Path folder = Files.createDirectories(into.resolve("routes"));
        try (var files = Files.list(Path.of("routes"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".camel.yaml")).toList()) {
                Files.copy(file, folder.resolve(file.getFileName()));
            }
        }
        return new RoutesCopy(folder);
    }

    /**
     * @param file a route file's name, e.g. {@code release.camel.yaml}
     * @param edit the change, on the file's text; it must change something
     * @return this copy
     * @throws IOException when the file cannot be read or written
     */
    public RoutesCopy edit(String file, UnaryOperator<String> edit) throws IOException {
        Path path = folder.resolve(file);
        String before = Files.readString(path, StandardCharsets.UTF_8);
        String after = edit.apply(before);
        if (after.equals(before)) {
            throw new IllegalStateException("the edit of " + file + " changed nothing: the shipped route changed?");
        }
        Files.writeString(path, after, StandardCharsets.UTF_8);
        return this;
    }

    /**
     * @param file a new route file's name
     * @param yaml its text
     * @return this copy
     * @throws IOException when it cannot be written
     */
    public RoutesCopy add(String file, String yaml) throws IOException {
        Files.writeString(folder.resolve(file), yaml, StandardCharsets.UTF_8);
        return this;
    }

    /** @return the folder, as {@code iq.routes-dir} takes it */
    public Path folder() {
        return folder;
    }

    /**
     * @param dataDir the consumer's data folder
     * @param properties further system properties
     * @param log where its output goes
     * @return {@code run} on the embedded profile, with the test defaults, consuming from this copy's routes
     * @throws IOException when it cannot be started
     */
    public ConsumerProcess run(Path dataDir, Map<String, String> properties, Path log) throws IOException {
        return command(List.of("run", "--data-dir", dataDir.toString()), properties, log);
    }

    /**
     * @param args the command line after the launcher, e.g. {@code ingest <folder> --data-dir <dir>}
     * @param properties further system properties
     * @param log where its output goes
     * @return that command on the embedded profile, with the test defaults, on this copy's routes
     * @throws IOException when it cannot be started
     */
    public ConsumerProcess command(List<String> args, Map<String, String> properties, Path log) throws IOException {
        Map<String, String> p = new HashMap<>(TestPipeline.testProperties());
        p.put("iq.routes-dir", folder.toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        p.putAll(properties);
        return ConsumerProcess.command(args, p, Map.of(), log);
    }
}
