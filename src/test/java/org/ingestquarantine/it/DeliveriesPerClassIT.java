package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the classes that need their own configuration to provoke (downstream_contract, resource_fatal
 * from a parser killed on time) are delivered exactly retries + 1 times on the embedded SQS path,
 * counted by a proxy outside the pipeline, then have exactly one quarantine record. The other classes
 * are pinned per broker by the scenario suite ({@code scenarios.BrokerScenarios}).
 */
class DeliveriesPerClassIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path data;

    @Test
    void shouldQuarantineDownstreamContractBreachOnFirstDelivery() throws Exception {
        // a chunker allowed past the model's context breaks the embedder's contract
        Map<String, String> props = Map.of("chunk.max-chars", "100000", "chunk.max-tokens", "100000");
        try (TestPipeline pipeline = TestPipeline.start(data, props)) {
            String key = pipeline.publishFile("it", "long.pdf", Corpus.file("c0041.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            pipeline.assertQuarantinedOnce(key, "it", "long.pdf", ErrorClass.DOWNSTREAM_CONTRACT, "chunk_too_long");
        }
    }

    @Test
    void shouldQuarantineParserDeathAsResourceFatalAfterItsBudget() throws Exception {
        // a wall-clock limit no parse can meet: the parent kills the worker every time
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of("parse.timeout-ms", "1"))) {
            String key = pipeline.publishFile("it", "slow.pdf", Corpus.file("c0007.pdf"));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            pipeline.assertQuarantinedOnce(key, "it", "slow.pdf", ErrorClass.RESOURCE_FATAL, "time_limit");
        }
    }
}
