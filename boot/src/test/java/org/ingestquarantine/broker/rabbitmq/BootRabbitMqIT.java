package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.boot.BootRun;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.DocumentState;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.scenarios.RabbitMqFixture;
import org.ingestquarantine.testsupport.CliPublishers;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the Boot application on the rabbitmq profile indexes a document published with the real amqp-publish
 * CLI, consumed once, and reports its broker connection UP.
 */
class BootRabbitMqIT {

    @TempDir
    Path data;

    @Test
    void shouldIndexADocumentPublishedWithAmqpPublish() throws Exception {
        try (RabbitMqFixture fixture = new RabbitMqFixture()) {
            Map<String, String> p = new HashMap<>(fixture.start());
            p.putAll(TestPipeline.testProperties());
            p.put("iq.data-dir", data.toString());
            try (BootRun run = BootRun.start("rabbitmq", p)) {
                TestPipeline pipeline = TestPipeline.attach(run.camel(), fixture);
                Path pdf = Path.of("samples", "pdfs", "02-text-three-pages.pdf").toAbsolutePath();
                String json = new IngestMessage("cli", "three-pages.pdf", pdf.toUri(), null, null, null).toJson();

                CliPublishers.amqpPublish(fixture.broker().amqpUri(), "ingest", "ingest", json);

                // amqp-publish sets no message id: the consumer gives the publish one (a ULID), so the
                // document is followed by its name, and its attempts counted in the journal
                DocumentIndex index = pipeline.bean("documentIndex", DocumentIndex.class);
                Awaitility.await("indexed").atMost(Duration.ofSeconds(120)).until(() -> index.state("cli",
                        "three-pages.pdf").filter(DocumentState.SEARCHABLE::equals).isPresent());
                assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE source = ?"
                        + " AND doc_id = ?", "cli", "three-pages.pdf")).as("attempts").isEqualTo(1);
                assertThat(run.actuator().health().status("broker")).isEqualTo("UP");
            }
        }
    }
}
