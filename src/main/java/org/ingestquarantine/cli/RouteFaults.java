package org.ingestquarantine.cli;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.MessageHistory;
import org.apache.camel.NamedNode;
import org.apache.camel.spi.CamelEvent;
import org.apache.camel.spi.CamelEvent.ExchangeFailureHandlingEvent;
import org.apache.camel.support.EventNotifierSupport;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.ErrorFingerprint;

/**
 * Failures of the routes themselves while {@code check-routes} runs its scenario: an exception Camel raised (an
 * expression that cannot evaluate, {@code ${body.pageCont}}; a bean method that does not bind; a type that does not
 * convert), not one a stage threw about a document: what the taxonomy classifies {@link ErrorClass#PIPELINE_FAULT},
 * by the same rules a real consumer applies ({@link ErrorTaxonomy#standard()}). Each is kept once per node, at the node's file and line (the
 * last entry of the exchange's message history, {@code camel.main.message-history}), named by its exception type
 * and the node's label: never its message, which may quote the body.
 */
final class RouteFaults extends EventNotifierSupport implements AutoCloseable {

    private final Map<String, RouteProblem> faults = new ConcurrentHashMap<>();
    private final ErrorClassifier taxonomy = ErrorTaxonomy.standard();
    private final CamelContext context;

    private RouteFaults(CamelContext context) {
        this.context = context;
        setupIgnore(true);
        setIgnoreExchangeEvents(false);
        setIgnoreExchangeFailedEvents(false);
    }

    /** @return a listener on {@code context}'s failure handling, already listening */
    static RouteFaults listen(CamelContext context) throws Exception {
        RouteFaults faults = new RouteFaults(context);
        faults.start();
        context.getManagementStrategy().addEventNotifier(faults);
        return faults;
    }

    @Override
    public boolean isEnabled(CamelEvent event) {
        return event instanceof ExchangeFailureHandlingEvent;
    }

    @Override
    public void notify(CamelEvent event) {
        Exchange exchange = ((ExchangeFailureHandlingEvent) event).getExchange();
        Throwable failure = exchange.getException() != null ? exchange.getException()
                : exchange.getProperty(ExchangePropertyKey.EXCEPTION_CAUGHT, Throwable.class);
        if (failure == null) {
            return;
        }
        if (taxonomy.classify(failure).errorClass() != ErrorClass.PIPELINE_FAULT) {
            return; // a stage's own exception: about the document, classified as such
        }
        Throwable root = ErrorFingerprint.rootCause(failure);
        @SuppressWarnings("unchecked")
        List<MessageHistory> history = exchange.getProperty(ExchangePropertyKey.MESSAGE_HISTORY, List.class);
        NamedNode node = history == null || history.isEmpty() ? null : history.get(history.size() - 1).getNode();
        String label = node == null ? "?" : node.getLabel();
        RouteProblem problem = RouteProblem.at(node == null ? null : node.getLocation(),
                node == null ? 0 : node.getLineNumber(), root.getClass().getSimpleName() + " while running " + label
                        + " (a failure of the route, not of the document)");
        faults.putIfAbsent(problem.file() + ":" + problem.line(), problem);
    }

    /** @return the faults seen, one per node */
    List<RouteProblem> faults() {
        return faults.values().stream().sorted(java.util.Comparator.comparing(RouteProblem::toString)).toList();
    }

    @Override
    public void close() {
        context.getManagementStrategy().removeEventNotifier(this);
    }
}
