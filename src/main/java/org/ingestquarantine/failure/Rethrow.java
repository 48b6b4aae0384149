package org.ingestquarantine.failure;

import org.apache.camel.Exchange;

/**
 * Throws again the exception a route's {@code doCatch} caught, once the catch block has done its work, so
 * the exchange stays failed and the consumer does not acknowledge the message.
 */
public final class Rethrow {

    /**
     * @param exchange an exchange inside a {@code doCatch}, the caught exception in {@link Exchange#EXCEPTION_CAUGHT}
     * @throws Exception always: the caught exception, or an {@link IllegalStateException} if there is none
     */
    public void caught(Exchange exchange) throws Exception {
        Exception caught = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
        throw caught != null ? caught : new IllegalStateException("rethrow outside a doCatch: no caught exception");
    }
}
