package org.ingestquarantine.broker.rabbitmq;

import java.time.Duration;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection factory that, during start-up, tries again when the broker refuses or drops a new connection
 * (a reset during the handshake, a broker still starting, a vhost not created yet), every {@code interval} until
 * {@code retryFor} after it was built; from then on it fails at once, as its delegate does. Start-up opens the
 * consumers' and the publisher's connections on the thread that starts the routes, and camel-spring-rabbitmq's
 * consumer declares its queues there, so one refused connection used to end {@code run} with exit 1; once it
 * runs, the listener containers recover a lost connection by themselves (every 5 s), and that is left as it is.
 * A broker still unreachable after {@code retryFor} fails the start with its last error.
 */
final class StartupRetryingConnectionFactory implements ConnectionFactory {

    private static final Logger LOG = LoggerFactory.getLogger(StartupRetryingConnectionFactory.class);

    private final ConnectionFactory delegate;
    private final Duration interval;
    private final long retryUntilNanos;

    /**
     * @param delegate the factory that connects (a caching one, so a connection made here is the one reused)
     * @param retryFor how long from now connections are tried again ({@code rabbitmq.startup-retry-ms})
     * @param interval the pause between two tries ({@code rabbitmq.startup-retry-interval-ms})
     */
    StartupRetryingConnectionFactory(ConnectionFactory delegate, Duration retryFor, Duration interval) {
        this.delegate = delegate;
        this.interval = interval;
        this.retryUntilNanos = System.nanoTime() + retryFor.toNanos();
    }

    @Override
    public Connection createConnection() throws AmqpException {
        int failures = 0;
        while (true) {
            try {
                Connection c = delegate.createConnection();
                if (failures > 0) {
                    LOG.info("RabbitMQ at {}:{} connected after {} refused attempt(s)", getHost(), getPort(), failures);
                }
                return c;
            } catch (AmqpException e) {
                if (System.nanoTime() + interval.toNanos() - retryUntilNanos > 0) {
                    throw e;
                }
                failures++;
                if (failures == 1) {
                    LOG.warn("RabbitMQ at {}:{} (vhost {}) refused a connection during start-up ({}); trying again every"
                            + " {} ms until the start-up retry time is spent", getHost(), getPort(), getVirtualHost(),
                            e.getClass().getSimpleName(), interval.toMillis());
                }
                pause();
            }
        }
    }

    private void pause() {
        try {
            Thread.sleep(interval.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new org.springframework.amqp.AmqpConnectException("interrupted while waiting to connect to RabbitMQ", e);
        }
    }

    @Override
    public String getHost() {
        return delegate.getHost();
    }

    @Override
    public int getPort() {
        return delegate.getPort();
    }

    @Override
    public String getVirtualHost() {
        return delegate.getVirtualHost();
    }

    @Override
    public String getUsername() {
        return delegate.getUsername();
    }

    @Override
    public void addConnectionListener(ConnectionListener listener) {
        delegate.addConnectionListener(listener);
    }

    @Override
    public boolean removeConnectionListener(ConnectionListener listener) {
        return delegate.removeConnectionListener(listener);
    }

    @Override
    public void clearConnectionListeners() {
        delegate.clearConnectionListeners();
    }

    @Override
    public ConnectionFactory getPublisherConnectionFactory() {
        return delegate.getPublisherConnectionFactory();
    }

    @Override
    public boolean isSimplePublisherConfirms() {
        return delegate.isSimplePublisherConfirms();
    }

    @Override
    public boolean isPublisherConfirms() {
        return delegate.isPublisherConfirms();
    }

    @Override
    public boolean isPublisherReturns() {
        return delegate.isPublisherReturns();
    }

    @Override
    public void resetConnection() {
        delegate.resetConnection();
    }
}
