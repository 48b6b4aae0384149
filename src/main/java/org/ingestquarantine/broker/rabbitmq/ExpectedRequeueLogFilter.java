package org.ingestquarantine.broker.rabbitmq;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;
import org.springframework.amqp.ImmediateRequeueAmqpException;

/**
 * Logback filter (logback.xml) that drops the listener container's ERROR "Failed to invoke listener"
 * with a stack trace, from any logger, when the exception is the {@link ImmediateRequeueAmqpException} our requeue advice throws
 * ({@link RabbitMqWiring}): that requeue is the expected end of a released message, already logged on
 * one line by the failure route. Every other event passes unchanged.
 */
public final class ExpectedRequeueLogFilter extends TurboFilter {

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        // the container logs under its class name, Camel's CamelDirectMessageListenerContainer
        return t instanceof ImmediateRequeueAmqpException ? FilterReply.DENY : FilterReply.NEUTRAL;
    }
}
