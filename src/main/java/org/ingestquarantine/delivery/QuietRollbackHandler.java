package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.spi.ExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's exception handler: a message left unacknowledged for redelivery is expected, and is
 * already logged once by the failure route, so this logs one line at DEBUG instead of a stack trace.
 * Anything that is not such a rollback is logged at WARN on one line.
 */
public final class QuietRollbackHandler implements ExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(QuietRollbackHandler.class);

    @Override
    public void handleException(Throwable exception) {
        handleException(null, null, exception);
    }

    @Override
    public void handleException(String message, Throwable exception) {
        handleException(message, null, exception);
    }

    @Override
    public void handleException(String message, Exchange exchange, Throwable exception) {
        String type = exception == null ? "none" : exception.getClass().getName();
        if (exchange != null && exchange.getProperty(org.ingestquarantine.pipeline.PipelineKeys.DISPOSITION) != null) {
            LOG.debug("message left for redelivery ({})", type);
        } else {
            LOG.warn("{} ({})", org.ingestquarantine.pipeline.LogSafe.identity(message), type);
        }
    }
}
