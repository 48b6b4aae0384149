package org.ingestquarantine.broker.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Ensures a message published to the embedded SQS server and not yet consumed survives a restart on the same data
 * folder, in that folder's store and no other.
 */
class EmbeddedSqsServerIT {

    private static final Path CONFIGS = Path.of("broker-configs", "sqs");

    @TempDir
    Path dataDir;

    @Test
    void shouldKeepAnUnconsumedMessageAcrossARestart() throws Exception {
        Path store = dataDir.resolve("sqs");
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0, store); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            sqs.sendMessage(b -> b.queueUrl(url).messageBody("{\"doc_id\":\"kept\"}"));
        }
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0, store); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            List<Message> received = sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(2)).messages();
            assertThat(received).extracting(Message::body).containsExactly("{\"doc_id\":\"kept\"}");
        }
    }

    /** ElasticMQ sets up its store's connection pool once per JVM; a later server must still use its own folder. */
    @Test
    void shouldKeepEachStoreInItsOwnFolderWhenServersStartOneAfterAnother() throws Exception {
        Path first = dataDir.resolve("first");
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0, first); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            sqs.sendMessage(b -> b.queueUrl(url).messageBody("first"));
        }
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0, dataDir.resolve("second")); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            assertThat(sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1)).messages())
                    .as("messages of another folder's store").isEmpty();
        }
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0, first); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            assertThat(sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(2)).messages())
                    .extracting(Message::body).containsExactly("first");
        }
    }

    @Test
    void shouldLoseTheMessageWithoutAStore() throws Exception {
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            sqs.sendMessage(b -> b.queueUrl(url).messageBody("gone"));
        }
        try (EmbeddedSqsServer server = EmbeddedSqsServer.start(0); SqsClient sqs = client(server)) {
            String url = SqsQueues.create(sqs, CONFIGS, "ingest");
            assertThat(sqs.receiveMessage(b -> b.queueUrl(url).waitTimeSeconds(1)).messages()).isEmpty();
        }
    }

    private static SqsClient client(EmbeddedSqsServer server) {
        return SqsClient.builder().region(Region.US_EAST_1).endpointOverride(server.endpoint())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build();
    }
}
