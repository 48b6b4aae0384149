package org.ingestquarantine.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A start-up that fails after the embedded PostgreSQL, the broker and the parse workers have started (here: the
 * operator API's port is taken) stops them again and says which setting to change: a fresh user's failed
 * {@code run} left its PostgreSQL running, orphaned, until the next start found it.
 */
class StartupFailureIT {

    @TempDir
    Path data;

    @Test
    void shouldStopWhatItStartedWhenStartUpFailsMidway() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> TestPipeline.start(data, Map.of(AppConfiguration.SERVE_OPERATOR_API, "true",
                    "operator.api-port", Integer.toString(taken.getLocalPort()), "operator.api-token", "startup-failure-token")))
                    .hasStackTraceContaining("set operator.api-port to a free port");
        }
        assertThat(Files.isDirectory(data.resolve("postgres"))).as("the database had started").isTrue();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (postgresRunningIn(data) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(postgresRunningIn(data)).as("a PostgreSQL still running on " + data).isFalse();
    }

    private static boolean postgresRunningIn(Path data) {
        String folder = data.resolve("postgres").toString();
        return ProcessHandle.allProcesses().anyMatch(p -> p.info().commandLine()
                .map(c -> c.contains("postgres") && c.contains("-D " + folder)).orElse(false));
    }
}
