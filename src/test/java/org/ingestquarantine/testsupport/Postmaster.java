package org.ingestquarantine.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.ingestquarantine.db.EmbeddedPostgresService;

/**
 * The embedded PostgreSQL server a consumer in its own JVM starts in its data folder, by pid: seen while the consumer
 * starts, and whether it is still running after the consumer exited (a failed start must leave none behind).
 */
public final class Postmaster {

    /** How long a stopped consumer's PostgreSQL may take to go. */
    public static final Duration STOPPED_WITHIN = Duration.ofSeconds(10);

    private Postmaster() {
    }

    /**
     * @param dataDir the consumer's data folder
     * @param run the consumer
     * @param log its output, shown if it exits first
     * @return the embedded PostgreSQL server's pid, read from its {@code postmaster.pid} while the consumer starts
     */
    public static long await(Path dataDir, ConsumerProcess run, Path log) throws Exception {
        Path pidFile = EmbeddedPostgresService.folderIn(dataDir).resolve("postmaster.pid");
        long deadline = System.nanoTime() + RoutesCopy.START_LIMIT.toNanos();
        while (System.nanoTime() < deadline) {
            OptionalLong pid = readPid(pidFile);
            if (pid.isPresent()) {
                return pid.getAsLong();
            }
            if (!run.isAlive()) {
                throw new AssertionError("exited before its PostgreSQL was seen; output:\n" + Files.readString(log));
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no PostgreSQL started within " + RoutesCopy.START_LIMIT);
    }

    /**
     * Waits up to {@link #STOPPED_WITHIN} for the process to go, then stops it if it has not (a failing test leaves
     * nothing running either).
     *
     * @param pid a PostgreSQL server's pid
     * @return whether it was still running
     */
    public static boolean leftRunning(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + STOPPED_WITHIN.toNanos();
        while (alive(pid) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        boolean left = alive(pid);
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
        return left;
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static OptionalLong readPid(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile);
            long pid = lines.isEmpty() || lines.get(0).isBlank() ? 0 : Long.parseLong(lines.get(0).trim());
            // initdb's single-user backend writes its pid negated: the server's own comes after it
            return pid > 0 ? OptionalLong.of(pid) : OptionalLong.empty();
        } catch (java.io.IOException | NumberFormatException notYet) {
            return OptionalLong.empty();
        }
    }
}
