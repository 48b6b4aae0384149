package org.ingestquarantine.testsupport;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.Exchange;
import org.apache.camel.spi.CamelEvent.ExchangeCompletedEvent;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.awaitility.Awaitility;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * The tests' own record of settled deliveries, from Camel's exchange-completed events (the mechanism
 * NotifyBuilder is built on): a consumer exchange that completed without failure was acknowledged, and its
 * outcome is the one the pipeline set ({@link PipelineKeys#OUTCOME}). Nothing here reads the application's
 * own state. The copies that run the consumer route's onCompletion (the work file's removal) are not counted.
 */
public final class Settlements extends EventNotifierSupport {

    private final Map<String, String> outcomes = new ConcurrentHashMap<>();
    private final AtomicLong settled = new AtomicLong();

    public Settlements() {
        setupIgnore(true);
        setIgnoreExchangeEvents(false);
        setIgnoreExchangeCompletedEvent(false);
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeCompletedEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        Exchange exchange = ((ExchangeCompletedEvent) event).getExchange();
        String outcome = exchange.getProperty(PipelineKeys.OUTCOME, String.class);
        String key = exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class);
        boolean onCompletionCopy = exchange.getProperty(Exchange.ON_COMPLETION, false, Boolean.class);
        if (!onCompletionCopy && !exchange.isFailed() && outcome != null && key != null && "ingest-consumer".equals(exchange.getFromRouteId())) {
            outcomes.put(key, outcome);
            settled.incrementAndGet();
        }
    }

    /** @return the outcome of a delivery key settled in this process, or {@code null} */
    public String outcomeOf(String deliveryKey) {
        return outcomes.get(deliveryKey);
    }

    /** @return deliveries settled in this process, every settlement counted */
    public long count() {
        return settled.get();
    }

    /**
     * @param deliveryKey a published message
     * @param timeout how long to wait
     * @return its outcome
     */
    public String await(String deliveryKey, Duration timeout) {
        Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(50)).until(() -> outcomes.containsKey(deliveryKey));
        return outcomes.get(deliveryKey);
    }
}
