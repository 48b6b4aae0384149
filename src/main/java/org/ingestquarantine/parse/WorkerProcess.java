package org.ingestquarantine.parse;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.ingestquarantine.failure.RemoteCause;

/**
 * One parser worker JVM, used by one caller at a time. It knows how to start the JVM, send a document,
 * kill it at the deadline and tell from its exit why it died.
 */
final class WorkerProcess {

    /** Exit status of a HotSpot JVM that stopped because of {@code -XX:+ExitOnOutOfMemoryError}. */
    static final int EXIT_OUT_OF_MEMORY = 3;
    /** How long a worker that broke the protocol gets to finish exiting before it is killed. */
    private static final Duration EXIT_GRACE = Duration.ofSeconds(5);

    private final Process process;
    private final DataOutputStream requests;
    private final DataInputStream responses;
    /** Set when the deadline fired, even if the answer won the race: the worker is being killed. */
    private volatile boolean spent;
    /** This worker writes the class-data archive when it exits: {@link #close()} gives it time for that. */
    private final boolean writesArchive;

    private WorkerProcess(Process process, boolean writesArchive) {
        this.process = process;
        this.writesArchive = writesArchive;
        this.requests = new DataOutputStream(new BufferedOutputStream(process.getOutputStream()));
        this.responses = new DataInputStream(new BufferedInputStream(process.getInputStream(), 1 << 16));
    }

    /** Starts a worker JVM with the same java binary and classpath as this one; does not wait for it. */
    static WorkerProcess start(ParseLimits limits) throws IOException {
        List<String> command = command(limits);
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        return new WorkerProcess(builder.start(),
                command.stream().anyMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit=")));
    }

    static List<String> command(ParseLimits limits) {
        return command(limits, System.getProperty(WorkerPoolParser.WORKER_CDS_PROPERTY));
    }

    /** Only the first worker of this JVM writes a missing class-data archive. */
    private static final java.util.concurrent.atomic.AtomicBoolean ARCHIVE_CLAIMED =
            new java.util.concurrent.atomic.AtomicBoolean();
    /** How long a worker writing its class-data archive at exit gets before it is killed, seconds. */
    private static final long ARCHIVE_WRITE_SECONDS = 30;

    static List<String> command(ParseLimits limits, String archive) {
        String java = ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        List<String> command = new ArrayList<>(List.of(java,
                "-Xmx" + limits.maxHeapMb() + "m",
                "-XX:+ExitOnOutOfMemoryError",
                "-XX:+UseSerialGC",
                "-Djava.awt.headless=true"));
        if (archive != null && !archive.isBlank()) {
            if (Files.isRegularFile(Path.of(archive))) {
                command.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds*=off"));
            } else if (ARCHIVE_CLAIMED.compareAndSet(false, true)) {
                command.addAll(List.of("-XX:ArchiveClassesAtExit=" + archive + ".tmp." + ProcessHandle.current().pid(),
                        "-Xlog:cds*=off"));
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path")));
        String launcher = System.getProperty(WorkerPoolParser.WORKER_LAUNCHER_PROPERTY);
        if (launcher == null) {
            command.add(WorkerMain.class.getName());
        } else {
            command.addAll(List.of("-Dloader.main=" + WorkerMain.class.getName(), launcher));
        }
        command.addAll(List.of(
                Integer.toString(limits.maxPages()),
                Long.toString(limits.maxStreamBytes()),
                Long.toString(limits.maxImagePixels()),
                Long.toString(limits.scratchMemoryBytes())));
        return command;
    }

    /**
     * Blocks until the worker says it is ready, or kills it.
     *
     * @throws IOException the worker did not become ready within {@code timeout}
     */
    void awaitReady(Duration timeout, ScheduledExecutorService watchdog) throws IOException {
        ScheduledFuture<?> kill = watchdog.schedule(process::destroyForcibly, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            if (WorkerProtocol.readKind(responses) != WorkerProtocol.READY) {
                throw new IOException("worker did not start with READY");
            }
        } catch (IOException e) {
            destroy();
            throw new IOException("parser worker failed to start within " + timeout.toMillis() + " ms", e);
        } finally {
            kill.cancel(false);
        }
    }

    /**
     * Parses one document in the worker, killing the worker if it takes longer than {@code timeout}.
     * After a {@link ParserCrashedException} the worker is dead and must be replaced.
     */
    ParsedDocument parse(Path pdf, Duration timeout, ScheduledExecutorService watchdog) throws ParseException {
        AtomicBoolean killedForTime = new AtomicBoolean();
        ScheduledFuture<?> kill = watchdog.schedule(() -> {
            killedForTime.set(true);
            process.destroyForcibly();
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            WorkerProtocol.writeRequest(requests, pdf.toAbsolutePath().toString());
            byte kind = WorkerProtocol.readKind(responses);
            switch (kind) {
                case WorkerProtocol.OK:
                    return WorkerProtocol.readOk(responses);
                case WorkerProtocol.FAILED:
                    throw WorkerProtocol.readFailed(responses);
                case WorkerProtocol.UNEXPECTED:
                    RemoteCause cause = WorkerProtocol.readUnexpected(responses);
                    throw new IllegalStateException("parser worker failed unexpectedly: " + cause.remoteType(), cause);
                default:
                    throw new IOException("unknown frame kind " + kind);
            }
        } catch (IOException e) {
            spent = true;
            throw died(killedForTime.get(), timeout, e);
        } finally {
            if (!kill.cancel(false)) {
                spent = true;
            }
        }
    }

    private ParserCrashedException died(boolean killedForTime, Duration timeout, IOException protocolFailure) {
        if (killedForTime) {
            destroy();
            return new ParserCrashedException(ParserCrashedException.TIME_LIMIT, "parser worker killed after "
                    + timeout.toMillis() + " ms (" + ParseLimits.PROPERTY_TIMEOUT_MS + ")", null);
        }
        Integer exit = exitStatus();
        if (exit != null && exit == EXIT_OUT_OF_MEMORY) {
            return new ParserCrashedException(ParserCrashedException.HEAP_LIMIT,
                    "parser worker ran out of heap (" + ParseLimits.PROPERTY_MAX_HEAP_MB + ")", null);
        }
        return new ParserCrashedException(ParserCrashedException.WORKER_CRASH, exit == null
                ? "parser worker broke the protocol and was killed"
                : "parser worker exited with status " + exit, protocolFailure);
    }

    /** @return the exit status after waiting a short grace period, or null if it had to be killed */
    private Integer exitStatus() {
        try {
            if (process.waitFor(EXIT_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                return process.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        destroy();
        return null;
    }

    /** @return whether the worker can take another document */
    boolean isUsable() {
        return !spent && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Asks the worker to exit by closing its stdin, then kills it if it has not exited shortly after. */
    void close() {
        try {
            requests.close();
        } catch (IOException ignored) {
            // the worker is gone already
        }
        try {
            if (!process.waitFor(writesArchive ? ARCHIVE_WRITE_SECONDS : 2, TimeUnit.SECONDS)) {
                destroy();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroy();
        }
    }

    /** Kills the worker and waits briefly for it to go. */
    void destroy() {
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
