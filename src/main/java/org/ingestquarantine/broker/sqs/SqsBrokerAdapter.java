package org.ingestquarantine.broker.sqs;

import java.time.Duration;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.aws2.sqs.Sqs2Constants;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerBackstop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SQS (and ElasticMQ): the key is the message id, the count is {@code ApproximateReceiveCount}, and a
 * release sets the message's visibility timeout to the back-off, so the redelivery waits that long.
 *
 * <p>SQS counts in whole seconds and allows at most 43,200 s (12 h) of visibility (AWS SQS Developer
 * Guide, "Visibility timeout"); a longer back-off is capped there.
 */
public final class SqsBrokerAdapter implements BrokerAdapter {

    /** Upper bound of ChangeMessageVisibility, seconds (AWS documentation). */
    public static final int MAX_VISIBILITY_SECONDS = 43_200;

    private static final Logger LOG = LoggerFactory.getLogger(SqsBrokerAdapter.class);

    private final SqsClient sqs;
    private final String queueUrl;
    private final int redriveAt;

    /**
     * @param sqs the client the consumer uses
     * @param queueUrl the ingest queue's URL
     */
    public SqsBrokerAdapter(SqsClient sqs, String queueUrl) {
        this(sqs, queueUrl, Integer.MAX_VALUE);
    }

    /**
     * @param sqs the client the consumer uses
     * @param queueUrl the ingest queue's URL
     * @param maxReceiveCount the queue's RedrivePolicy maxReceiveCount ({@link #maxReceiveCount}), or
     *     {@link Integer#MAX_VALUE} without one
     */
    public SqsBrokerAdapter(SqsClient sqs, String queueUrl, int maxReceiveCount) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.redriveAt = maxReceiveCount;
    }

    /**
     * @param sqs a client
     * @param queueUrl a queue's URL
     * @return its RedrivePolicy's maxReceiveCount, or {@link Integer#MAX_VALUE} when it has no redrive policy
     */
    public static int maxReceiveCount(SqsClient sqs, String queueUrl) {
        String policy;
        try {
            policy = sqs.getQueueAttributes(b -> b.queueUrl(queueUrl).attributeNames(QueueAttributeName.REDRIVE_POLICY))
                    .attributes().get(QueueAttributeName.REDRIVE_POLICY);
        } catch (SdkException e) {
            LOG.warn("cannot read the RedrivePolicy of the ingest queue ({}); a delivery waiting for a live attempt"
                    + " elsewhere may be handed back even at maxReceiveCount (grant sqs:GetQueueAttributes)",
                    e.getClass().getSimpleName());
            return Integer.MAX_VALUE;
        }
        if (policy == null || policy.isBlank()) {
            return Integer.MAX_VALUE;
        }
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(policy).path("maxReceiveCount").asInt(Integer.MAX_VALUE);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("the RedrivePolicy of " + queueUrl + " is not JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** @return the queue's maxReceiveCount: a message handed back at this count is dead-lettered at its next receive */
    @Override
    public int redriveAt() {
        return redriveAt;
    }

    /** @return the queue's maxReceiveCount as the backstop, where it has a RedrivePolicy */
    @Override
    public java.util.Optional<BrokerBackstop> backstop() {
        if (redriveAt == Integer.MAX_VALUE) {
            return java.util.Optional.empty();
        }
        String queue = queueUrl.substring(queueUrl.lastIndexOf('/') + 1);
        return java.util.Optional.of(new BrokerBackstop(redriveAt, "the SQS queue " + queue + "'s maxReceiveCount "
                + redriveAt + " (its RedrivePolicy: broker-configs/sqs/ingest.attributes.json for the queues we create)"));
    }

    @Override
    public String deliveryKey(Exchange exchange) {
        return "sqs:" + exchange.getIn().getHeader(Sqs2Constants.MESSAGE_ID, String.class);
    }

    @Override
    public int deliveryCount(Exchange exchange) {
        Map<?, ?> attributes = exchange.getIn().getHeader(Sqs2Constants.ATTRIBUTES, Map.class);
        Object count = attributes == null ? null : attributes.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
        if (count == null && attributes != null) {
            count = attributes.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT.toString());
        }
        if (count == null) {
            throw new IllegalStateException("the SQS message has no ApproximateReceiveCount attribute;"
                    + " configure the consumer with attributeNames=All");
        }
        return Integer.parseInt(count.toString());
    }

    @Override
    public void release(Exchange exchange, Duration delay) {
        String receipt = exchange.getIn().getHeader(Sqs2Constants.RECEIPT_HANDLE, String.class);
        int seconds = (int) Math.min(MAX_VISIBILITY_SECONDS, (delay.toMillis() + 999) / 1000);
        try {
            sqs.changeMessageVisibility(b -> b.queueUrl(queueUrl).receiptHandle(receipt).visibilityTimeout(seconds));
        } catch (SdkException e) {
            // the message still comes back, after the queue's own visibility timeout
            LOG.warn("could not set the redelivery delay of {} to {} s ({}); it returns after the queue's visibility timeout",
                    org.ingestquarantine.pipeline.LogSafe.identity(deliveryKey(exchange)), seconds, e.getClass().getSimpleName());
        }
    }
}
