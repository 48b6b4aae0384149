package org.ingestquarantine.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The production consumer ({@code ingest-quarantine run}) as a separate JVM, so that a test can kill it
 * with SIGKILL or stop it with SIGTERM exactly as an operator or the OOM killer would.
 */
public final class ConsumerProcess implements AutoCloseable {

    private final Process process;
    private final List<ProcessHandle> workers = new ArrayList<>();

    private ConsumerProcess(Process process) {
        this.process = process;
    }

    /**
     * @param fileName a log file's name
     * @return {@code target/<fileName>}, its folder made and an earlier run's file deleted, to give {@link #start}
     * @throws IOException when the folder cannot be made or the old file deleted
     */
    public static Path freshLog(String fileName) throws IOException {
        Path log = Files.createDirectories(Path.of("target")).resolve(fileName);
        Files.deleteIfExists(log);
        return log;
    }

    /**
     * @param profile the profile, e.g. {@code sqs}
     * @param dataDir its data folder
     * @param properties system properties (override the profile's file)
     * @param env extra environment variables
     * @param log where its stdout and stderr go
     * @return the started process
     * @throws IOException when it cannot be started
     */
    public static ConsumerProcess start(String profile, Path dataDir, Map<String, String> properties,
                                        Map<String, String> env, Path log) throws IOException {
        return command(List.of("run", "--profile", profile, "--data-dir", dataDir.toString()), properties, env, log);
    }

    /**
     * @param args the command line after the launcher, e.g. {@code ingest <folder> --data-dir <dir>}
     * @param properties system properties (override the profile's file)
     * @param env extra environment variables
     * @param log where its stdout and stderr go
     * @return the started process
     * @throws IOException when it cannot be started
     */
    public static ConsumerProcess command(List<String> args, Map<String, String> properties, Map<String, String> env,
                                          Path log) throws IOException {
        return java("org.ingestquarantine.cli.IngestQuarantineCli", args, properties, env, log);
    }

    /**
     * @param mainClass the class to run from the test class path (the Spring Boot module's entry point)
     * @param args its command line
     * @param properties system properties (override the profile's file)
     * @param env extra environment variables
     * @param log where its stdout and stderr go
     * @return the started process
     * @throws IOException when it cannot be started
     */
    public static ConsumerProcess java(String mainClass, List<String> args, Map<String, String> properties,
                                       Map<String, String> env, Path log) throws IOException {
        List<String> cmd = new ArrayList<>();
        // SIGINT back to its default: a JVM started with SIGINT ignored (a test run launched in the background by
        // a shell without job control passes SIG_IGN down) refuses to handle it, as it should for a nohup'd process
        cmd.addAll(List.of("env", "--default-signal=INT"));
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m");
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        return new ConsumerProcess(pb.start());
    }

    /** Kills the consumer with SIGKILL (no shutdown hook runs) and waits until it is gone. */
    public void kill9() throws InterruptedException {
        workers.addAll(process.descendants().toList());
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * Sends SIGTERM and waits for the exit.
     *
     * @return the exit code
     */
    public int terminate() throws InterruptedException {
        workers.addAll(process.descendants().toList());
        process.destroy();
        return process.waitFor();
    }

    /**
     * Sends SIGINT (what Ctrl-C sends) and waits for the exit.
     *
     * @return the exit code
     */
    public int interrupt() throws IOException, InterruptedException {
        workers.addAll(process.descendants().toList());
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -INT " + process.pid() + " failed");
        }
        return process.waitFor();
    }

    /**
     * Waits for a command that ends by itself (e.g. {@code ingest <folder>}).
     *
     * @param limit how long at most
     * @return the exit code
     * @throws IllegalStateException if it still runs after {@code limit}
     */
    public int awaitExit(java.time.Duration limit) throws InterruptedException {
        if (!process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("still running after " + limit);
        }
        return process.exitValue();
    }

    /** @return the parser worker JVMs it had when it was killed or terminated */
    public List<ProcessHandle> workersAtStop() {
        return workers;
    }

    /** @return its process id */
    public long pid() {
        return process.pid();
    }

    /** @return whether it still runs */
    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor();
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
    }

    /** @return the path separator-joined test class path (for diagnostics) */
    static String classPath() {
        return System.getProperty("java.class.path").replace(File.pathSeparatorChar, '\n');
    }
}
