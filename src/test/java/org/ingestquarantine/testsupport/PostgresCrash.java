package org.ingestquarantine.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.ingestquarantine.db.EmbeddedPostgresService;

/**
 * Crashes an embedded PostgreSQL the way a power cut would look to it: {@code pg_ctl stop -m immediate}, i.e. SIGQUIT
 * to the postmaster (every process exits at once, the WAL buffer is not flushed, the next start runs crash recovery
 * from the WAL on disk), then starts it again on the same folder and port.
 */
public final class PostgresCrash {

    private static final Duration LIMIT = Duration.ofSeconds(60);

    private PostgresCrash() {
    }

    /**
     * @param postgres a running server
     * @param dataDirectory its folder
     * @throws AssertionError if the signal cannot be sent
     */
    public static void crashAndRestart(EmbeddedPostgresService postgres, Path dataDirectory) throws Exception {
        long pid = Long.parseLong(Files.readAllLines(dataDirectory.resolve("postmaster.pid")).get(0).trim());
        ProcessHandle postmaster = ProcessHandle.of(pid)
                .orElseThrow(() -> new AssertionError("no PostgreSQL process " + pid));
        // what pg_ctl stop -m immediate sends (pg_ctl itself refuses to run as root, as the tests may)
        Exec quit = Exec.run(List.of("kill", "-QUIT", Long.toString(pid)), LIMIT);
        if (quit.exitCode() != 0) {
            throw new AssertionError("kill -QUIT " + pid + " failed: " + quit.output());
        }
        postmaster.onExit().get(LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        try {
            postgres.stop(); // zonky's own stop finds no server: only its handle is dropped
        } catch (RuntimeException alreadyGone) {
            // expected: the server is gone
        }
        postgres.start();
    }
}
