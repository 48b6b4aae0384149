package org.ingestquarantine.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.app.DataDirLock;
import org.ingestquarantine.boot.BootApplication;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the Boot application as a real process (its {@code main}, as {@code java -jar} runs it) exits 0 on
 * SIGTERM after the graceful stop: none of its child processes (the parser's worker JVMs, the embedded
 * PostgreSQL) left running, PostgreSQL stopped in order (its pid file removed), the data folder's lock released.
 */
class BootSigtermIT {

    /** Start-up on 2 busy cores: the web server, the embedded services, the Camel context. */
    private static final Duration START = Duration.ofSeconds(180);
    private static final Duration STOP = Duration.ofSeconds(90);

    @TempDir
    Path data;

    @Test
    void shouldExitZeroAfterTheGracefulStopOnSigterm() throws Exception {
        Path log = ConsumerProcess.freshLog("boot-sigterm.log");
        try (SqsFixture sqs = new SqsFixture()) {
            Map<String, String> p = new HashMap<>(sqs.start());
            p.putAll(TestPipeline.testProperties());
            p.put("iq.data-dir", data.resolve("app").toString());
            try (ConsumerProcess boot = ConsumerProcess.java(BootApplication.class.getName(),
                    List.of("--spring.profiles.active=embedded", "--server.port=0"), p, Map.of(), log)) {
                Awaitility.await("started").atMost(START).pollInterval(Duration.ofMillis(500))
                        .until(() -> Files.readString(log).contains("Started BootApplication")
                                || !boot.isAlive());
                assertThat(boot.isAlive()).as(Files.readString(log)).isTrue();
                List<ProcessHandle> children = ProcessHandle.of(boot.pid()).orElseThrow().descendants().toList();
                assertThat(children).as("worker JVMs and PostgreSQL").isNotEmpty();

                long began = System.nanoTime();
                int exit = boot.terminate();
                String output = Files.readString(log);
                assertThat(exit).as(output).isZero();
                assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(STOP);
                Awaitility.await("children gone").atMost(Duration.ofSeconds(10))
                        .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
                // PostgreSQL stopped by the context's close, not killed: it removes its pid file only then
                assertThat(EmbeddedPostgresService.folderIn(data.resolve("app")).resolve("postmaster.pid"))
                        .doesNotExist();
                try (DataDirLock again = DataDirLock.acquire(data.resolve("app"))) {
                    assertThat(again).as("the data folder's lock released").isNotNull();
                }
            }
        }
    }
}
