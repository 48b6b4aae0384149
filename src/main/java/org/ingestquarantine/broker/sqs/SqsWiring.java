package org.ingestquarantine.broker.sqs;

import java.net.URI;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.BrokerSetup;
import org.ingestquarantine.delivery.BrokerWiring;
import org.ingestquarantine.pipeline.Settings;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;

/**
 * The {@code sqs} and {@code embedded} profiles' beans: the SQS client (bean {@code sqsClient}, named by
 * {@code ingest.from-uri}), the ingest queue's URL ({@code ingestQueueUrl}), the publisher
 * ({@code ingestPublisher}) and the adapter.
 *
 * <p>Properties: {@code sqs.mode} (embedded: an in-JVM ElasticMQ on {@code sqs.port}, 0 = any free port,
 * queues created from {@code iq.broker-configs-dir}/sqs; external: an existing queue, credentials from the
 * AWS SDK's default chain), {@code sqs.queue}, {@code sqs.endpoint-url} (optional), {@code sqs.region}
 * (optional; else {@code AWS_REGION}, else us-east-1).
 */
public final class SqsWiring implements BrokerWiring {

    /** Registry name of the embedded SQS server's endpoint URL (a String), bound only in embedded mode. */
    public static final String EMBEDDED_ENDPOINT = "embeddedSqsEndpoint";

    @Override
    public BrokerAdapter open(BrokerSetup setup) throws Exception {
        Settings settings = setup.settings();
        SqsClientBuilder builder = SqsClient.builder().region(Region.of(settings.find("sqs.region")
                .orElse(System.getenv().getOrDefault("AWS_REGION", "us-east-1"))));
        String queue = settings.required("sqs.queue");
        boolean embedded = "embedded".equals(settings.required("sqs.mode"));
        if (embedded) {
            EmbeddedSqsServer server = EmbeddedSqsServer.start((int) settings.requiredNumber("sqs.port"),
                    settings.path("iq.data-dir", "data").resolve("sqs"));
            setup.closeOnStop().accept(server);
            setup.registry().bind(EMBEDDED_ENDPOINT, server.endpoint().toString());
            builder.endpointOverride(settings.find("sqs.endpoint-url").map(URI::create).orElse(server.endpoint()))
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")));
        } else {
            settings.find("sqs.endpoint-url").map(URI::create).ifPresent(builder::endpointOverride);
            builder.credentialsProvider(DefaultCredentialsProvider.builder().build());
        }
        SqsClient sqs = builder.build();
        setup.closeOnStop().accept(sqs);
        String queueUrl = embedded
                ? SqsQueues.create(sqs, settings.path("iq.broker-configs-dir", "broker-configs").resolve("sqs"), queue)
                : sqs.getQueueUrl(b -> b.queueName(queue)).queueUrl();
        setup.registry().bind("sqsClient", sqs);
        setup.registry().bind("ingestQueueUrl", queueUrl);
        setup.registry().bind("ingestPublisher", new SqsIngestPublisher(sqs, queueUrl));
        return new SqsBrokerAdapter(sqs, queueUrl, SqsBrokerAdapter.maxReceiveCount(sqs, queueUrl));
    }
}
