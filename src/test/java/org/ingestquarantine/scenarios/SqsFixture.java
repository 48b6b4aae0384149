package org.ingestquarantine.scenarios;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.SqsReceiveCounter;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * SQS through the embedded profile's in-JVM ElasticMQ server, with {@link SqsReceiveCounter} between the
 * consumer and the server to count deliveries from outside.
 */
public final class SqsFixture implements BrokerFixture {

    /**
     * The consumer's visibility timeout in the scenarios, seconds: beyond any scenario's waits, so a message
     * that only comes back because its visibility ran out (instead of being released) fails the scenario.
     */
    static final int VISIBILITY_SECONDS = 900;
    /**
     * The visibility timeout of a consumer in its own JVM, seconds: what a killed consumer had received
     * (its long poll may still receive after the kill) is visible again after this long.
     */
    static final int EXTERNAL_VISIBILITY_SECONDS = 15;

    private SqsReceiveCounter counter;
    private int port;

    @Override
    public String name() {
        return "sqs";
    }

    @Override
    public String profile() {
        return "embedded";
    }

    @Override
    public Map<String, String> start() throws Exception {
        port = FreePort.find();
        counter = new SqsReceiveCounter(URI.create("http://127.0.0.1:" + port));
        Map<String, String> p = new HashMap<>();
        p.put("sqs.port", Integer.toString(port));
        p.put("sqs.endpoint-url", counter.endpoint().toString());
        p.put("sqs.visibility-timeout-s", Integer.toString(VISIBILITY_SECONDS));
        return p;
    }

    /** @return sqs: the production profile, on this fixture's ElasticMQ through an endpoint override */
    @Override
    public String externalProfile() {
        return "sqs";
    }

    /**
     * The consumer reaches ElasticMQ through the receive counter, with fixed credentials as system
     * properties (the AWS SDK's default chain reads them) and a visibility timeout of
     * {@value #EXTERNAL_VISIBILITY_SECONDS} s, so what a killed consumer had received comes back soon.
     */
    @Override
    public Map<String, String> externalConsumerProperties() {
        Map<String, String> p = new HashMap<>();
        p.put("sqs.endpoint-url", counter.endpoint().toString());
        p.put("sqs.region", Region.US_EAST_1.id());
        p.put("aws.accessKeyId", "x");
        p.put("aws.secretAccessKey", "x");
        p.put("sqs.visibility-timeout-s", Integer.toString(EXTERNAL_VISIBILITY_SECONDS));
        return p;
    }

    @Override
    public int deliveries(String deliveryKey) {
        return counter.receives(deliveryKey.substring(deliveryKey.indexOf(':') + 1));
    }

    @Override
    public long deadLettered() {
        try (SqsClient sqs = SqsClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x"))).build()) {
            String url = sqs.getQueueUrl(b -> b.queueName("ingest-dlq")).queueUrl();
            Map<QueueAttributeName, String> a = sqs.getQueueAttributes(b -> b.queueUrl(url)
                    .attributeNames(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE)).attributes();
            return a.values().stream().mapToLong(Long::parseLong).sum();
        }
    }

    /** @return false: the in-JVM ElasticMQ server keeps no messages across a restart */
    @Override
    public boolean canRestart() {
        return false;
    }

    @Override
    public void close() {
        if (counter != null) {
            counter.close();
        }
    }
}
