package org.ingestquarantine.delivery;

import org.apache.camel.Exchange;
import org.apache.camel.Processor;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * Classifies a delivery's failure once, when it occurs, and keeps the {@link Classification} on the exchange
 * ({@link PipelineKeys#FAILURE}) for everyone who acts on it: the disposition, the circuit breaker, the
 * quarantine recorder and the metrics. The route configuration names it as the error handler's
 * {@code onExceptionOccurredRef}, so it runs before {@code onException} evaluates {@code handled}.
 */
public final class ClassifyFailure implements Processor {

    private final ErrorClassifier classifier;

    /** @param classifier the taxonomy ({@link ErrorTaxonomy#standard()}) */
    public ClassifyFailure(ErrorClassifier classifier) {
        this.classifier = classifier;
    }

    @Override
    public void process(Exchange exchange) {
        of(exchange);
    }

    /**
     * @param exchange a failed delivery
     * @return its classification: the one already on the exchange, else the caught exception's, now stored
     */
    public Classification of(Exchange exchange) {
        Classification known = exchange.getProperty(PipelineKeys.FAILURE, Classification.class);
        if (known != null) {
            return known;
        }
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (failure == null) {
            failure = exchange.getException();
        }
        Classification c = classifier.classify(failure != null ? failure
                : new IllegalStateException("the delivery failed without an exception"));
        exchange.setProperty(PipelineKeys.FAILURE, c);
        return c;
    }
}
