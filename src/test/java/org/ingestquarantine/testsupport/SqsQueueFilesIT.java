package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** Ensures the SQS attribute files create working queues in ElasticMQ, and pins the redrive backstop at 10 receives. */
class SqsQueueFilesIT {
    private static SQSRestServer server;
    private static SqsClient sqs;

    @BeforeAll
    static void startElasticMq() {
        server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
        int port = server.waitUntilStarted().localAddress().getPort();
        sqs = SqsClient.builder().endpointOverride(URI.create("http://127.0.0.1:" + port))
                .region(Region.of(SqsQueueFiles.ELASTICMQ_REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build();
    }

    @AfterAll
    static void stop() {
        sqs.close();
        server.stopAndWait();
    }

    @Test
    void shouldReadEveryAttributeAsAStringAndFillTheArn() {
        Map<QueueAttributeName, String> ingest = SqsQueueFiles.attributes("ingest", "eu-west-1", "123456789012");

        assertThat(ingest).containsEntry(QueueAttributeName.VISIBILITY_TIMEOUT, "30")
                .containsKeys(QueueAttributeName.MESSAGE_RETENTION_PERIOD, QueueAttributeName.RECEIVE_MESSAGE_WAIT_TIME_SECONDS);
        assertThat(ingest.get(QueueAttributeName.REDRIVE_POLICY))
                .isEqualTo("{\"deadLetterTargetArn\":\"arn:aws:sqs:eu-west-1:123456789012:ingest-dlq\",\"maxReceiveCount\":\"10\"}");
        assertThat(SqsQueueFiles.forElasticMq("ingest-dlq")).doesNotContainKey(QueueAttributeName.REDRIVE_POLICY);
    }

    @Test
    void shouldMoveAMessageToTheDlqOnTheEleventhReceive() {
        String dlqUrl = sqs.createQueue(b -> b.queueName("ingest-dlq").attributes(SqsQueueFiles.forElasticMq("ingest-dlq"))).queueUrl();
        String url = sqs.createQueue(b -> b.queueName("ingest").attributes(SqsQueueFiles.forElasticMq("ingest"))).queueUrl();
        assertThat(sqs.getQueueAttributes(b -> b.queueUrl(dlqUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes().get(QueueAttributeName.QUEUE_ARN)).isEqualTo("arn:aws:sqs:elasticmq:000000000000:ingest-dlq");
        sqs.sendMessage(b -> b.queueUrl(url).messageBody("{\"doc_id\":\"s-1\"}"));

        List<String> receiveCounts = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            sqs.receiveMessage(b -> b.queueUrl(url).visibilityTimeout(0).waitTimeSeconds(0)
                            .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT))
                    .messages().forEach(m -> receiveCounts.add(m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT)));
        }
        List<Message> dead = sqs.receiveMessage(b -> b.queueUrl(dlqUrl).waitTimeSeconds(1)).messages();

        assertThat(receiveCounts).containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10");
        assertThat(dead).singleElement().extracting(Message::body).isEqualTo("{\"doc_id\":\"s-1\"}");
    }
}
