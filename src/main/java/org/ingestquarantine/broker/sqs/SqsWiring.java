package org.ingestquarantine.broker.sqs;

import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 *
 * <p>The server, the client and the queues need nothing else of the application: {@link #startEarly} starts
 * them in a thread of their own while the database starts (ElasticMQ and the SDK take 2-3 s on two cores).
 * One instance per application start.
 */
public final class SqsWiring implements BrokerWiring {

    /** Registry name of the embedded SQS server's endpoint URL (a String), bound only in embedded mode. */
    public static final String EMBEDDED_ENDPOINT = "embeddedSqsEndpoint";

    private CompletableFuture<Connected> early;
    private volatile boolean taken;

    /** The server (embedded mode only), the client and the ingest queue's URL. */
    private record Connected(EmbeddedSqsServer server, SqsClient sqs, String queueUrl) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            sqs.close();
            if (server != null) {
                server.close();
            }
        }
    }

    @Override
    public AutoCloseable startEarly(Settings settings) {
        early = CompletableFuture.supplyAsync(() -> {
            try {
                return connect(settings);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, task -> {
            Thread t = new Thread(task, "sqs-start");
            t.setDaemon(true);
            t.start();
        });
        CompletableFuture<Connected> started = early;
        return () -> {
            if (!taken) {
                started.thenAccept(c -> {
                    try {
                        c.close();
                    } catch (Exception ignored) {
                        // start-up failed elsewhere; stopping anyway
                    }
                });
            }
        };
    }

    @Override
    public BrokerAdapter open(BrokerSetup setup) throws Exception {
        Connected c;
        if (early == null) {
            c = connect(setup.settings());
        } else {
            try {
                c = early.join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        taken = true;
        if (c.server() != null) {
            setup.closeOnStop().accept(c.server());
            setup.registry().bind(EMBEDDED_ENDPOINT, c.server().endpoint().toString());
        }
        setup.closeOnStop().accept(c.sqs());
        setup.registry().bind("sqsClient", c.sqs());
        setup.registry().bind("ingestQueueUrl", c.queueUrl());
        setup.registry().bind("ingestPublisher", new SqsIngestPublisher(c.sqs(), c.queueUrl()));
        return new SqsBrokerAdapter(c.sqs(), c.queueUrl(), SqsBrokerAdapter.maxReceiveCount(c.sqs(), c.queueUrl()));
    }

    private static Connected connect(Settings settings) throws Exception {
        SqsClientBuilder builder = SqsClient.builder().region(Region.of(settings.find("sqs.region")
                .orElse(System.getenv().getOrDefault("AWS_REGION", "us-east-1"))));
        String queue = settings.required("sqs.queue");
        boolean embedded = "embedded".equals(settings.required("sqs.mode"));
        EmbeddedSqsServer server = null;
        if (embedded) {
            server = EmbeddedSqsServer.start((int) settings.requiredNumber("sqs.port"),
                    settings.path("iq.data-dir", "data").resolve("sqs"));
            builder.endpointOverride(settings.find("sqs.endpoint-url").map(URI::create).orElse(server.endpoint()))
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("x", "x")));
        } else {
            settings.find("sqs.endpoint-url").map(URI::create).ifPresent(builder::endpointOverride);
            builder.credentialsProvider(DefaultCredentialsProvider.builder().build());
        }
        SqsClient sqs = null;
        try {
            sqs = builder.build();
            SqsClient client = sqs;
            String queueUrl = embedded
                    ? SqsQueues.create(sqs, settings.path("iq.broker-configs-dir", "broker-configs").resolve("sqs"), queue)
                    : sqs.getQueueUrl(b -> b.queueName(queue)).queueUrl();
            return new Connected(server, client, queueUrl);
        } catch (Exception | Error e) {
            if (sqs != null) {
                sqs.close();
            }
            if (server != null) {
                server.close();
            }
            throw e;
        }
    }
}
