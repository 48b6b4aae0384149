package org.ingestquarantine.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Reads {@code broker-configs/sqs/<queue>.attributes.json} (the {@code aws sqs create-queue --attributes}
 * shape) into the map the AWS SDK's {@code CreateQueueRequest.attributes} takes, filling the ARN
 * placeholders {@value #REGION_TOKEN} and {@value #ACCOUNT_TOKEN} (see {@code broker-configs/sqs/README.md}).
 */
public final class SqsQueueFiles {
    public static final String REGION_TOKEN = "${AWS_REGION}";
    public static final String ACCOUNT_TOKEN = "${AWS_ACCOUNT_ID}";
    /** Region ElasticMQ puts into its ARNs. */
    public static final String ELASTICMQ_REGION = "elasticmq";
    /** Account ElasticMQ puts into its ARNs and queue URLs. */
    public static final String ELASTICMQ_ACCOUNT = "000000000000";
    /** The folder of attribute files, relative to the project root. */
    public static final Path DIRECTORY = Path.of("broker-configs", "sqs");

    private SqsQueueFiles() {
    }

    /** Attributes of {@code queue} with the placeholders filled for ElasticMQ. */
    public static Map<QueueAttributeName, String> forElasticMq(String queue) {
        return attributes(queue, ELASTICMQ_REGION, ELASTICMQ_ACCOUNT);
    }

    /** Attributes of {@code queue}, read from {@code <queue>.attributes.json}, placeholders filled. */
    public static Map<QueueAttributeName, String> attributes(String queue, String region, String account) {
        Path file = DIRECTORY.resolve(queue + ".attributes.json");
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file.toAbsolutePath() + "; run from the project root", e);
        }
        Map<QueueAttributeName, String> attributes = new LinkedHashMap<>();
        json.fields().forEachRemaining(f -> {
            if (!f.getValue().isTextual()) {
                throw new IllegalArgumentException(file + ": attribute " + f.getKey() + " must be a JSON string");
            }
            QueueAttributeName name = QueueAttributeName.fromValue(f.getKey());
            if (name == QueueAttributeName.UNKNOWN_TO_SDK_VERSION) {
                throw new IllegalArgumentException(file + ": " + f.getKey() + " is not an SQS queue attribute");
            }
            attributes.put(name, f.getValue().asText().replace(REGION_TOKEN, region).replace(ACCOUNT_TOKEN, account));
        });
        return attributes;
    }
}
