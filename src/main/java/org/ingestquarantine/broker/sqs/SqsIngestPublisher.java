package org.ingestquarantine.broker.sqs;

import java.util.List;
import java.util.Map;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.pipeline.IngestMessage;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/** Sends ingest messages to an SQS queue, and reports how many are still on it. */
public final class SqsIngestPublisher implements IngestPublisher {

    private static final List<QueueAttributeName> PENDING = List.of(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED);

    private final SqsClient sqs;
    private final String queueUrl;

    /**
     * @param sqs a client
     * @param queueUrl the ingest queue's URL
     */
    public SqsIngestPublisher(SqsClient sqs, String queueUrl) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
    }

    @Override
    public String publish(IngestMessage message) {
        return publishRaw(message.toJson());
    }

    @Override
    public String publishRaw(String body) {
        String id = sqs.sendMessage(b -> b.queueUrl(queueUrl).messageBody(body)).messageId();
        return "sqs:" + id;
    }

    @Override
    public long pending() {
        Map<QueueAttributeName, String> a = sqs.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNames(PENDING))
                .attributes();
        return PENDING.stream().mapToLong(n -> Long.parseLong(a.getOrDefault(n, "0"))).sum();
    }
}
