package org.ingestquarantine.delivery;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.spi.CamelEvent.ExchangeCompletedEvent;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.ingestquarantine.pipeline.PipelineKeys;

/**
 * The outcomes a command run (and a test) waits for, learnt from Camel's exchange-completed events: a consumer exchange
 * that completed without failure was acknowledged, with the outcome the pipeline set on it
 * ({@link PipelineKeys#OUTCOME}), under its delivery key. Listens only between {@link #listen} and
 * {@link #close}, so nothing outlives the command (the {@code run} consumer keeps no such map).
 */
public final class SettledOutcomes extends EventNotifierSupport implements AutoCloseable {

    /** Route id of the consumer route (routes/ingest-consumer.camel.yaml). */
    private static final String CONSUMER_ROUTE = "ingest-consumer";

    private final Map<String, String> outcomes = new ConcurrentHashMap<>();
    private final AtomicLong settlements = new AtomicLong();
    private final CamelContext context;

    private SettledOutcomes(CamelContext context) {
        this.context = context;
        setupIgnore(true);
        setIgnoreExchangeEvents(false);
        setIgnoreExchangeCompletedEvent(false);
    }

    /**
     * @param context the running application's context
     * @return a listener, already listening; close it when the command is done
     * @throws Exception when it cannot be started
     */
    public static SettledOutcomes listen(CamelContext context) throws Exception {
        SettledOutcomes settled = new SettledOutcomes(context);
        settled.start();
        context.getManagementStrategy().addEventNotifier(settled);
        return settled;
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
        if (!onCompletionCopy && !exchange.isFailed() && outcome != null && key != null
                && CONSUMER_ROUTE.equals(exchange.getFromRouteId())) {
            outcomes.put(key, outcome);
            settlements.incrementAndGet();
        }
    }

    /**
     * @param deliveryKey a published message
     * @return its outcome once settled while listening, else {@code null}
     */
    public String outcomeOf(String deliveryKey) {
        return outcomes.get(deliveryKey);
    }

    /** @return settlements seen while listening, every one counted (a delivery settled twice counts twice) */
    public long count() {
        return settlements.get();
    }

    @Override
    public void close() {
        context.getManagementStrategy().removeEventNotifier(this);
        stop();
        outcomes.clear();
    }
}
