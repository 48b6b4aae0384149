package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.RawHttpServer;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a source that stalls or drips its body costs a consumer no more than the configured deadline
 * (transient/timeout), and a healthy document published behind the stalls is indexed soon after.
 */
class HostileSourceIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Duration IDLE = Duration.ofSeconds(2);
    private static final Duration DEADLINE = Duration.ofSeconds(6);

    @TempDir
    Path data;

    @TempDir
    Path files;

    @Test
    void shouldEndStallingAndDrippingBodiesAsTimeoutsWithoutHoldingBackAHealthyDocument() throws Exception {
        Files.copy(Corpus.file("c0007.pdf"), files.resolve("warm.pdf"));
        Files.copy(Corpus.file("c0018.pdf"), files.resolve("healthy.pdf"));
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: 100000\r\n\r\n");
            if (head.startsWith("HEAD")) {
                return;
            }
            if (head.contains("/stall")) {
                RawHttpServer.write(out, "%PDF-1.4\n" + "x".repeat(91));
                Thread.sleep(60_000);
            }
            for (int i = 0; i < 100; i++) {
                RawHttpServer.write(out, "x");
                Thread.sleep(IDLE.toMillis() / 2);
            }
        }); TestPipeline pipeline = TestPipeline.start(data, Map.of(
                "sources.web.file-roots", files.toString(),
                "sources.web.http-allow", "http://127.0.0.1:" + server.port(),
                "sources.web.http-allow-private", "true",
                "http.idle-timeout-ms", Long.toString(IDLE.toMillis()),
                "http.body-deadline-ms", Long.toString(DEADLINE.toMillis()),
                // one delivery each: the point is how long one takes, not the transient budget
                "failure.transient.retries", "0"))) {
            // the parser and model are warm before the clock starts
            assertThat(pipeline.awaitOutcome(pipeline.publishFile("web", "warm.pdf", files.resolve("warm.pdf")), WAIT))
                    .isEqualTo("indexed");

            long start = System.nanoTime();
            String stall = pipeline.publish(new IngestMessage("web", "stall.pdf", URI.create(server.url("/stall.pdf")),
                    null, null, null));
            String drip = pipeline.publish(new IngestMessage("web", "drip.pdf", URI.create(server.url("/drip.pdf")),
                    null, null, null));
            String healthy = pipeline.publishFile("web", "healthy.pdf", files.resolve("healthy.pdf"));

            assertThat(pipeline.awaitOutcome(healthy, WAIT)).isEqualTo("indexed");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("healthy document indexed after")
                    .isLessThan(DEADLINE.plusSeconds(8));
            assertThat(pipeline.awaitOutcome(stall, WAIT)).isEqualTo("quarantined");
            assertThat(pipeline.awaitOutcome(drip, WAIT)).isEqualTo("quarantined");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("both stalls settled after")
                    .isLessThan(DEADLINE.plusSeconds(8));
            pipeline.assertQuarantinedOnce(stall, "web", "stall.pdf", ErrorClass.TRANSIENT, "timeout");
            pipeline.assertQuarantinedOnce(drip, "web", "drip.pdf", ErrorClass.TRANSIENT, "timeout");
        }
    }
}
