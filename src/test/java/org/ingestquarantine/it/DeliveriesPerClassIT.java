package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.RedeliveryPolicies;
import org.ingestquarantine.ingest.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures every error class is delivered exactly retries + 1 times on the embedded SQS path, counted by
 * a proxy outside the pipeline, and then has exactly one quarantine record.
 */
class DeliveriesPerClassIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final RedeliveryPolicies POLICIES = RedeliveryPolicies.defaults();

    @TempDir
    Path data;

    @Test
    void shouldDeliverEachInputClassRetriesPlusOneTimesThenQuarantineOnce() throws Exception {
        HttpServer unavailable = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        unavailable.createContext("/", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        unavailable.start();
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            String good = pipeline.publishFile("it", "good.pdf", Corpus.file("c0007.pdf"));
            String notPdf = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));
            String damaged = pipeline.publishFile("it", "damaged.pdf", Corpus.file("c0069.pdf"));
            String flaky = pipeline.publish(new IngestMessage("it", "flaky.pdf",
                    URI.create("http://127.0.0.1:" + unavailable.getAddress().getPort() + "/flaky.pdf"), null, null, null));
            String opaque = pipeline.publish(new IngestMessage("it", "opaque.pdf", URI.create("file:opaque.pdf"),
                    null, null, null));

            assertThat(pipeline.awaitOutcome(good, WAIT)).isEqualTo("indexed");
            assertThat(pipeline.deliveries(good)).isEqualTo(1);
            for (String key : List.of(notPdf, damaged, flaky, opaque)) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(key).isEqualTo("quarantined");
            }
            assertQuarantinedOnce(pipeline, notPdf, "html.pdf", ErrorClass.PERMANENT_INPUT, "not_pdf");
            assertQuarantinedOnce(pipeline, damaged, "damaged.pdf", ErrorClass.AMBIGUOUS_PARSE, "parse_error");
            assertQuarantinedOnce(pipeline, flaky, "flaky.pdf", ErrorClass.TRANSIENT, "http_503");
            assertQuarantinedOnce(pipeline, opaque, "opaque.pdf", ErrorClass.UNCLASSIFIED, null);
        } finally {
            unavailable.stop(0);
        }
    }

    @Test
    void shouldQuarantineDownstreamContractBreachOnFirstDelivery() throws Exception {
        // a chunker allowed past the model's context breaks the embedder's contract
        Map<String, String> props = Map.of("chunk.max-chars", "100000", "chunk.max-tokens", "100000");
        try (TestPipeline pipeline = TestPipeline.start(data, props)) {
            String key = pipeline.publishFile("it", "long.pdf", Corpus.file("c0041.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            assertQuarantinedOnce(pipeline, key, "long.pdf", ErrorClass.DOWNSTREAM_CONTRACT, "chunk_too_long");
        }
    }

    @Test
    void shouldQuarantineParserDeathAsResourceFatalAfterItsBudget() throws Exception {
        // a wall-clock limit no parse can meet: the parent kills the worker every time
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of("parse.timeout-ms", "1"))) {
            String key = pipeline.publishFile("it", "slow.pdf", Corpus.file("c0007.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            assertQuarantinedOnce(pipeline, key, "slow.pdf", ErrorClass.RESOURCE_FATAL, "time_limit");
        }
    }

    private static void assertQuarantinedOnce(TestPipeline pipeline, String key, String docId, ErrorClass errorClass,
                                              String reason) {
        int expected = POLICIES.forClass(errorClass).maxDeliveries();
        assertThat(pipeline.deliveries(key)).as("deliveries of %s (%s)", docId, errorClass).isEqualTo(expected);
        QuarantineRecord record = pipeline.store().find("it", docId).orElseThrow();
        assertThat(record.errorClass()).isEqualTo(errorClass);
        if (reason != null) {
            assertThat(record.reasonCode()).isEqualTo(reason);
        }
        assertThat(record.attempts()).isEqualTo(1);
        List<QuarantineAttempt> history = pipeline.store().attempts(record.dlqId());
        assertThat(history).hasSize(1);
        assertThat(history.get(0).deliveryCount()).isEqualTo(expected);
    }
}
