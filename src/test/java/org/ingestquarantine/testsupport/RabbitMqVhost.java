package org.ingestquarantine.testsupport;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import org.ingestquarantine.pipeline.IngestMessage;

/**
 * A test's own vhost on the machine's RabbitMQ ({@link RabbitMqBroker}), created fresh and deleted on close, with
 * what a test of a consumer in its own JVM asks of it: the URI to give that consumer, its consumers on a queue,
 * and a confirmed publish with a message id of the test's choosing. While it exists it holds a share of the broker
 * application ({@link RabbitMqAppLock}).
 */
public final class RabbitMqVhost implements AutoCloseable {

    private final String name;
    private final AutoCloseable share;

    private RabbitMqVhost(String name, AutoCloseable share) {
        this.name = name;
        this.share = share;
    }

    /**
     * @param name the vhost, never {@code /}
     * @return the vhost, made fresh (the server started if needed)
     */
    public static RabbitMqVhost fresh(String name) {
        AutoCloseable share = RabbitMqAppLock.share();
        try {
            RabbitMqBroker.ensureRunning();
            RabbitMqBroker.freshVhost(name);
        } catch (RuntimeException | Error e) {
            closeQuietly(share);
            throw e;
        }
        return new RabbitMqVhost(name, share);
    }

    private static void closeQuietly(AutoCloseable share) {
        try {
            share.close();
        } catch (Exception e) {
            throw new IllegalStateException("cannot give back the RabbitMQ share", e);
        }
    }

    /**
     * @param port the port to reach the broker on (its own, or a proxy's)
     * @return {@code amqp://guest:guest@127.0.0.1:<port>/<vhost>}
     */
    public String uri(int port) {
        return "amqp://" + RabbitMqBroker.USER + ":" + RabbitMqBroker.USER + "@" + RabbitMqBroker.HOST + ":" + port + "/" + name;
    }

    /** @return consumers on {@code queue} now; 0 while it does not exist (the application's consumer declares it) */
    public long consumers(String queue) {
        try (Connection c = factory().newConnection("vhost-probe"); Channel ch = c.createChannel()) {
            return ch.consumerCount(queue);
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * Publishes to exchange {@code ingest} with routing key {@code ingest}, persistent, and waits for the confirm.
     *
     * @param messageId the AMQP message id (the delivery key is {@code rabbitmq:<messageId>})
     * @param message the body
     */
    public void publish(String messageId, IngestMessage message) throws Exception {
        try (Connection c = factory().newConnection("vhost-publisher"); Channel ch = c.createChannel()) {
            ch.confirmSelect();
            ch.basicPublish("ingest", "ingest", new AMQP.BasicProperties.Builder().messageId(messageId).deliveryMode(2)
                    .contentType("application/json").build(), message.toJson().getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(10_000);
        }
    }

    private ConnectionFactory factory() throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(uri(RabbitMqBroker.PORT));
        f.setAutomaticRecoveryEnabled(false);
        f.setConnectionTimeout(2_000);
        return f;
    }

    @Override
    public void close() throws Exception {
        try {
            RabbitMqBroker.deleteVhost(name);
        } finally {
            share.close();
        }
    }
}
