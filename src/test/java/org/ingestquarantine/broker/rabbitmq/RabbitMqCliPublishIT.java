package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.DocumentState;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.scenarios.RabbitMqFixture;
import org.ingestquarantine.testsupport.CliPublishers;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures a message published with the real amqp-publish CLI (no message id) is consumed once and indexed. */
class RabbitMqCliPublishIT {

    @TempDir
    Path data;

    @Test
    void shouldIndexADocumentPublishedWithAmqpPublish() throws Exception {
        RabbitMqFixture fixture = new RabbitMqFixture();
        try (TestPipeline pipeline = TestPipeline.start(data, fixture, Map.of())) {
            Path pdf = Path.of("samples", "pdfs", "02-text-three-pages.pdf").toAbsolutePath();
            String json = new IngestMessage("cli", "three-pages.pdf", pdf.toUri(), null, null, null).toJson();

            CliPublishers.amqpPublish(fixture.broker().amqpUri(), "ingest", "ingest", json);

            String key = RabbitMqBrokerAdapter.bodyKey(json);
            assertThat(pipeline.awaitOutcome(key, Duration.ofSeconds(120))).isEqualTo("indexed");
            assertThat(pipeline.deliveries(key)).isEqualTo(1);
            assertThat(pipeline.app().bean("documentIndex", DocumentIndex.class).state("cli", "three-pages.pdf"))
                    .contains(DocumentState.SEARCHABLE);
        }
    }
}
