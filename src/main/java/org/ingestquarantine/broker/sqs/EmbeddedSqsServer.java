package org.ingestquarantine.broker.sqs;

import java.net.URI;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQS protocol in this JVM: an ElasticMQ server on loopback, for the embedded profile and tests.
 * Its queues live in memory; {@link SqsQueues} creates them from {@code broker-configs/sqs/}.
 */
public final class EmbeddedSqsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedSqsServer.class);

    private final SQSRestServer server;
    private final int port;

    private EmbeddedSqsServer(SQSRestServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * @param port TCP port on 127.0.0.1, or 0 for any free port
     * @return the started server
     */
    public static EmbeddedSqsServer start(int port) {
        SQSRestServer server = (port == 0 ? SQSRestServerBuilder.withDynamicPort() : SQSRestServerBuilder.withPort(port))
                .withInterface("127.0.0.1").start();
        int bound = server.waitUntilStarted().localAddress().getPort();
        LOG.info("embedded SQS (ElasticMQ) listening on 127.0.0.1:{}", bound);
        return new EmbeddedSqsServer(server, bound);
    }

    /** @return the endpoint URL an SQS client is pointed at */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** @return the port it listens on */
    public int port() {
        return port;
    }

    @Override
    public void close() {
        server.stopAndWait();
    }
}
