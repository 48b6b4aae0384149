package org.ingestquarantine.broker.sqs;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Creates the ingest queue and its dead-letter queue from the same files the AWS CLI takes
 * ({@code aws sqs create-queue --queue-name NAME --attributes file://NAME.attributes.json}), so that the
 * embedded server and a real SQS account are set up alike. The dead-letter queue is created first and
 * its real ARN replaces the placeholder {@code deadLetterTargetArn} in the ingest queue's RedrivePolicy.
 */
public final class SqsQueues {

    private static final ObjectMapper JSON = new ObjectMapper();

    private SqsQueues() {
    }

    /**
     * @param sqs a client for the server
     * @param configDir the {@code broker-configs/sqs} folder
     * @param queue the ingest queue's name; its dead-letter queue is {@code <queue>-dlq}
     * @return the ingest queue's URL
     * @throws IOException when a configuration file cannot be read
     */
    public static String create(SqsClient sqs, Path configDir, String queue) throws IOException {
        String dlq = queue + "-dlq";
        Map<String, String> dlqAttributes = read(configDir, dlq);
        String dlqUrl = sqs.createQueue(b -> b.queueName(dlq).attributesWithStrings(dlqAttributes)).queueUrl();
        String dlqArn = sqs.getQueueAttributes(b -> b.queueUrl(dlqUrl).attributeNames(QueueAttributeName.QUEUE_ARN))
                .attributes().get(QueueAttributeName.QUEUE_ARN);
        Map<String, String> attributes = new HashMap<>(read(configDir, queue));
        String redrive = attributes.get(QueueAttributeName.REDRIVE_POLICY.toString());
        if (redrive != null) {
            Map<String, Object> policy = JSON.readValue(redrive, new TypeReference<Map<String, Object>>() { });
            policy.put("deadLetterTargetArn", dlqArn);
            attributes.put(QueueAttributeName.REDRIVE_POLICY.toString(), JSON.writeValueAsString(policy));
        }
        return sqs.createQueue(b -> b.queueName(queue).attributesWithStrings(attributes)).queueUrl();
    }

    private static Map<String, String> read(Path configDir, String queue) throws IOException {
        Path file = configDir.resolve(queue + ".attributes.json");
        if (!Files.isRegularFile(file)) {
            throw new IOException("missing SQS queue configuration " + file.toAbsolutePath()
                    + "; set iq.broker-configs-dir to the project's broker-configs folder");
        }
        return JSON.readValue(file.toFile(), new TypeReference<Map<String, String>>() { });
    }
}
