package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The outcome of one external command run by test support: its exit code and its combined stdout and
 * stderr. Exit code 124 means it ran past its time limit and was killed, 127 that it could not be started.
 *
 * <p>Output goes through a temporary file, not a pipe, so a command that leaves a daemon behind
 * ({@code rabbitmq-server -detached}) cannot keep the caller waiting for end of file.
 */
public record Exec(int exitCode, String output) {

    /** Runs {@code command} with no input and waits at most {@code limit} for it to end. */
    public static Exec run(List<String> command, Duration limit) {
        return run(command, new byte[0], limit);
    }

    /** Runs {@code command} with {@code stdin} as its standard input and waits at most {@code limit}. */
    public static Exec run(List<String> command, byte[] stdin, Duration limit) {
        return run(command, java.util.Map.of(), stdin, limit);
    }

    /** Runs {@code command} with {@code env} added to its environment and waits at most {@code limit}. */
    public static Exec run(List<String> command, java.util.Map<String, String> env, Duration limit) {
        return run(command, env, new byte[0], limit);
    }

    private static Exec run(List<String> command, java.util.Map<String, String> env, byte[] stdin, Duration limit) {
        Path out = null;
        try {
            out = Files.createTempFile("exec-", ".out");
            Path in = Files.write(Files.createTempFile("exec-", ".in"), stdin);
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(in.toFile()).redirectOutput(out.toFile());
            pb.environment().putAll(env);
            Process p = pb.start();
            boolean ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
            Files.delete(in);
            if (!ended) {
                p.destroyForcibly();
                return new Exec(124, String.join(" ", command) + " ran longer than " + limit + "\n" + Files.readString(out));
            }
            return new Exec(p.exitValue(), Files.readString(out));
        } catch (IOException e) {
            return new Exec(127, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Exec(130, "interrupted");
        } finally {
            if (out != null) {
                out.toFile().delete();
            }
        }
    }
}
