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
