package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.ingestquarantine.delivery.DlqSweeper;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.scenarios.BrokerFixture;
import org.ingestquarantine.scenarios.RabbitMqFixture;
import org.ingestquarantine.scenarios.SqsFixture;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/**
 * Ensures the dlq-sweeper route records each message the broker dead-lettered without a quarantine
 * record (once), acknowledges messages that already have one without a second record, and publishes
 * nothing back to the ingest queue; on SQS (ElasticMQ) and RabbitMQ.
 */
class DlqSweeperIT {

    static final Duration WAIT = Duration.ofSeconds(60);
    static final Path NOT_PDF = Path.of("samples", "pdfs", "09-not-pdf-html.pdf").toAbsolutePath();

    @TempDir
    Path data;

    /** What a broker variant supplies: its fixture and a way to put a message straight into its DLQ. */
    abstract class Variant {

        abstract BrokerFixture fixture();

        /** Publishes {@code body} to the broker's dead-letter queue; {@code errorClass} null = no header. */
        abstract void publishToDlq(TestPipeline pipeline, String body, String errorClass) throws Exception;

        @Test
        void shouldRecordUnrecordedDeadLettersOnceAndAcknowledgeRecordedOnes() throws Exception {
            try (TestPipeline pipeline = TestPipeline.start(data, fixture(), Map.of())) {
                String recordedBody = new IngestMessage("dlq", "recorded.pdf", NOT_PDF.toUri(), null, null, null).toJson();
                String key = pipeline.app().bean("ingestPublisher", IngestPublisher.class).publishRaw(recordedBody);
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                int ingestDeliveries = pipeline.deliveries(key);

                publishToDlq(pipeline, recordedBody, "permanent_input");
                publishToDlq(pipeline, new IngestMessage("dlq", "orphan.pdf", NOT_PDF.toUri(), null, null, null).toJson(),
                        "transient");
                publishToDlq(pipeline, "not json at all", null);
                // a configured source's message whose doc_id is invalid: under that source, as the consumer keys it
                publishToDlq(pipeline, "{\"source\":\"dlq\",\"doc_id\":\"bad\\nname.pdf\",\"uri\":\"file:///x.pdf\"}", null);

                QuarantineStore store = pipeline.store();
                QuarantineQueries queries = pipeline.app().bean("quarantineQueries", QuarantineQueries.class);
                String invalidDocIds = "SELECT count(*) FROM quarantine WHERE source = 'dlq' AND starts_with(doc_id, '"
                        + RecordKey.INVALID_DOC_ID_PREFIX + "') AND reason_code = '" + DlqSweeper.REASON + "'";
                Awaitility.await().atMost(WAIT).until(() -> store.find("dlq", "orphan.pdf").isPresent()
                        && queries.stats().stream().anyMatch(s -> s.source().equals(QuarantineRecorder.INVALID_MESSAGES_SOURCE))
                        && SqlCount.of(pipeline.dataSource(), invalidDocIds) == 1);
                assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine WHERE source = '"
                        + QuarantineRecorder.INVALID_MESSAGES_SOURCE + "'")).as("only the body that is not JSON").isEqualTo(1);
                QuarantineRecord orphan = store.find("dlq", "orphan.pdf").orElseThrow();
                assertThat(orphan.errorClass()).isEqualTo(ErrorClass.TRANSIENT);
                assertThat(orphan.reasonCode()).isEqualTo(DlqSweeper.REASON);
                assertThat(orphan.quarantineWrites()).isEqualTo(1);

                QuarantineRecord recorded = store.find("dlq", "recorded.pdf").orElseThrow();
                assertThat(recorded.quarantineWrites()).as("no second record for a message already recorded").isEqualTo(1);
                assertThat(recorded.reasonCode()).isEqualTo("not_pdf");

                Awaitility.await().atMost(WAIT).until(() -> drained(pipeline));
                assertThat(pipeline.app().bean("ingestPublisher", IngestPublisher.class).pending())
                        .as("nothing published back to the ingest queue").isZero();
                assertThat(pipeline.deliveries(key)).as("no new ingest delivery").isEqualTo(ingestDeliveries);
            }
        }

        /** @return whether the DLQ holds no message now (RabbitMQ's fixture counts every message it ever saw) */
        boolean drained(TestPipeline pipeline) throws Exception {
            return pipeline.broker().deadLettered() == 0;
        }
    }

    @Nested
    class Sqs extends Variant {

        @Override
        BrokerFixture fixture() {
            return new SqsFixture();
        }

        @Override
        void publishToDlq(TestPipeline pipeline, String body, String errorClass) {
            SqsClient sqs = pipeline.app().bean("sqsClient", SqsClient.class);
            String url = sqs.getQueueUrl(b -> b.queueName("ingest-dlq")).queueUrl();
            Map<String, MessageAttributeValue> attributes = new HashMap<>();
            if (errorClass != null) {
                attributes.put("error_class", MessageAttributeValue.builder().dataType("String").stringValue(errorClass).build());
            }
            sqs.sendMessage(b -> b.queueUrl(url).messageBody(body).messageAttributes(attributes));
        }
    }

    @Nested
    class RabbitMq extends Variant {

        private RabbitMqFixture fixture;

        @Override
        BrokerFixture fixture() {
            fixture = new RabbitMqFixture();
            return fixture;
        }

        @Override
        void publishToDlq(TestPipeline pipeline, String body, String errorClass) throws Exception {
            Map<String, Object> headers = new HashMap<>();
            if (errorClass != null) {
                headers.put("error_class", errorClass);
            }
            AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString())
                    .deliveryMode(2).contentType("application/json").headers(headers).build();
            try (Connection c = fixture.broker().connectionFactory().newConnection("dlq-test"); Channel ch = c.createChannel()) {
                ch.confirmSelect();
                ch.basicPublish("ingest.dlx", "", true, props, body.getBytes(StandardCharsets.UTF_8));
                ch.waitForConfirmsOrDie(5_000);
            }
        }

        @Override
        boolean drained(TestPipeline pipeline) {
            return fixture.broker().messageCount("ingest.dlq") == 0;
        }
    }
}
