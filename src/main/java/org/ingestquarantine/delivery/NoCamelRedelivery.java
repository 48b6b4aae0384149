package org.ingestquarantine.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.camel.CamelContext;
import org.apache.camel.ErrorHandlerFactory;
import org.apache.camel.LineNumberAware;
import org.apache.camel.model.Model;
import org.apache.camel.model.OnExceptionDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.ProcessorDefinitionHelper;
import org.apache.camel.model.RedeliveryPolicyDefinition;
import org.apache.camel.model.RouteConfigurationDefinition;
import org.apache.camel.model.RouteDefinition;
import org.apache.camel.model.SendDefinition;
import org.apache.camel.model.errorhandler.DeadLetterChannelDefinition;
import org.apache.camel.model.errorhandler.DefaultErrorHandlerDefinition;
import org.apache.camel.processor.errorhandler.RedeliveryPolicy;
import org.apache.camel.support.LifecycleStrategySupport;

/**
 * Refuses to start a context whose routes would have Camel redeliver a delivery in memory (routes/README.md,
 * "Camel never redelivers"): a {@code redeliveryPolicy} (or {@code redeliveryPolicyRef}) with a
 * {@code maximumRedeliveries} other than 0, placeholders resolved, on an {@code onException} or an error handler of
 * a route that consumes from the broker ({@value #INGEST_FROM} or {@value #DLQ_FROM}), of a route it reaches through
 * {@code direct:}, or of a route configuration applied to one of them. The broker redelivers; Camel's redeliveries
 * under it are not counted by the broker or the attempt journal, so the record would say 1 attempt after 8 parses.
 *
 * <p>Runs once the context has created the routes from their definitions (and applied their route configurations),
 * before it starts any consumer ({@link #onContextInitialized}: Camel logs the refusal once at WARN and does not stop
 * to log a stack trace, as it would for a failure while starting); the refusal is one line naming the file and line
 * of the {@code onException}
 * (Camel's own source location), or of the {@code redeliveryPolicy} of an {@code errorHandler} (found in the file by
 * {@link RouteFilePlaces}, as Camel keeps no line for an error handler).
 */
public final class NoCamelRedelivery extends LifecycleStrategySupport {

    /** The consumer's endpoint property (the profile's file). */
    public static final String INGEST_FROM = "ingest.from-uri";
    /** The DLQ sweeper's endpoint property (the profile's file; unset where the broker has no DLQ). */
    public static final String DLQ_FROM = "dlq.from-uri";

    private static final String BUDGETS = "Camel must not redeliver (the broker does); a class's deliveries are"
            + " failure.<class>.retries in application.properties";

    @Override
    public void onContextInitialized(CamelContext context) {
        check(context);
    }

    /**
     * @param context a context whose routes are defined
     * @throws IllegalStateException naming the first Camel redelivery found, file and line first
     */
    public static void check(CamelContext context) {
        Model model = context.getCamelContextExtension().getContextPlugin(Model.class);
        for (RouteDefinition route : deliveryRoutes(context, model)) {
            for (RouteConfigurationDefinition configuration : applied(route, model)) {
                for (OnExceptionDefinition onException : configuration.getOnExceptions()) {
                    refuseRedeliveries(context, onException, route);
                }
                if (configuration.getErrorHandler() != null) {
                    refuseRedeliveries(context, configuration.getErrorHandler().getErrorHandlerType(), route,
                            () -> RouteFilePlaces.errorHandlerRedelivery(context, fileOf(configuration),
                                    "routeConfiguration", configuration.getId()));
                }
            }
            for (OnExceptionDefinition onException : ProcessorDefinitionHelper.filterTypeInOutputs(route.getOutputs(),
                    OnExceptionDefinition.class)) {
                refuseRedeliveries(context, onException, route);
            }
            if (route.isErrorHandlerFactorySet()) {
                refuseRedeliveries(context, route.getErrorHandlerFactory(), route,
                        () -> RouteFilePlaces.errorHandlerRedelivery(context, route.getInput().getLocation(), "route",
                                route.getRouteId()));
            }
        }
    }

    /** @return the routes a delivery runs: those consuming from the broker and those they reach by endpoint */
    private static List<RouteDefinition> deliveryRoutes(CamelContext context, Model model) {
        Set<String> broker = new LinkedHashSet<>();
        for (String property : List.of(INGEST_FROM, DLQ_FROM)) {
            context.getPropertiesComponent().resolveProperty(property).map(u -> endpoint(context, u)).ifPresent(broker::add);
        }
        Set<RouteDefinition> reached = new LinkedHashSet<>();
        Deque<RouteDefinition> next = new ArrayDeque<>();
        for (RouteDefinition route : model.getRouteDefinitions()) {
            if (broker.contains(endpoint(context, route.getInput().getEndpointUri()))) {
                next.add(route);
            }
        }
        while (!next.isEmpty()) {
            RouteDefinition route = next.poll();
            if (!reached.add(route)) {
                continue;
            }
            Set<String> called = new LinkedHashSet<>();
            List<ProcessorDefinition<?>> outputs = new ArrayList<>(route.getOutputs());
            for (RouteConfigurationDefinition configuration : applied(route, model)) {
                outputs.addAll(configuration.getOnExceptions());
                outputs.addAll(configuration.getOnCompletions());
                if (configuration.getErrorHandler() != null
                        && configuration.getErrorHandler().getErrorHandlerType() instanceof DeadLetterChannelDefinition d) {
                    called.add(endpoint(context, d.getDeadLetterUri()));
                }
            }
            for (SendDefinition<?> send : ProcessorDefinitionHelper.filterTypeInOutputs(outputs, SendDefinition.class)) {
                called.add(endpoint(context, send.getEndpointUri()));
            }
            for (RouteDefinition other : model.getRouteDefinitions()) {
                if (called.contains(endpoint(context, other.getInput().getEndpointUri()))) {
                    next.add(other);
                }
            }
        }
        return List.copyOf(reached);
    }

    /** @return the route configurations Camel applied to {@code route} (by id; {@code <default>} is one without) */
    private static List<RouteConfigurationDefinition> applied(RouteDefinition route, Model model) {
        Set<String> ids = route.getAppliedRouteConfigurationIds();
        if (ids == null) {
            return List.of();
        }
        return model.getRouteConfigurationDefinitions().stream()
                .filter(c -> ids.contains(c.getId() == null ? "<default>" : c.getId())).toList();
    }

    /**
     * @return the file a route configuration was read from: Camel keeps its resource for some DSLs, and a line for
     *     each of its clauses
     */
    private static String fileOf(RouteConfigurationDefinition configuration) {
        if (configuration.getResource() != null) {
            return configuration.getResource().getLocation();
        }
        List<LineNumberAware> clauses = new ArrayList<>(configuration.getOnExceptions());
        clauses.addAll(configuration.getOnCompletions());
        clauses.addAll(configuration.getIntercepts());
        return clauses.stream().map(LineNumberAware::getLocation).filter(java.util.Objects::nonNull).findFirst()
                .orElse(null);
    }

    private static void refuseRedeliveries(CamelContext context, OnExceptionDefinition onException, RouteDefinition route) {
        Optional<String> redeliveries = redeliveries(context, onException.getRedeliveryPolicyType(),
                onException.getRedeliveryPolicyRef());
        if (redeliveries.isPresent()) {
            throw refusal(place(onException), "onException" + (onException.hasCustomIdAssigned() ? " " + onException.getId() : ""),
                    redeliveries.get(), route);
        }
    }

    private static void refuseRedeliveries(CamelContext context, ErrorHandlerFactory handler, RouteDefinition route,
                                           java.util.function.Supplier<String> place) {
        if (handler instanceof DefaultErrorHandlerDefinition d) {
            Optional<String> redeliveries = redeliveries(context, d.getRedeliveryPolicy(), d.getRedeliveryPolicyRef());
            if (redeliveries.isPresent()) {
                throw refusal(place.get(), "errorHandler", redeliveries.get(), route);
            }
        }
    }

    /** @return the redeliveries Camel would make, as written, where they are not 0 */
    private static Optional<String> redeliveries(CamelContext context, RedeliveryPolicyDefinition policy, String ref) {
        int n = 0;
        if (policy != null && policy.getMaximumRedeliveries() != null) {
            n = Integer.parseInt(context.resolvePropertyPlaceholders(policy.getMaximumRedeliveries()).trim());
        } else if (ref != null) {
            RedeliveryPolicy bean = context.getRegistry().lookupByNameAndType(ref.startsWith("#") ? ref.substring(1) : ref,
                    RedeliveryPolicy.class);
            n = bean == null ? 0 : bean.getMaximumRedeliveries();
        }
        return n == 0 ? Optional.empty() : Optional.of(Integer.toString(n));
    }

    private static IllegalStateException refusal(String place, String where, String redeliveries, RouteDefinition route) {
        return new IllegalStateException(place + ": redeliveryPolicy maximumRedeliveries " + redeliveries + " on "
                + where + " of route " + route.getRouteId() + ": " + BUDGETS);
    }

    /** @return {@code <file>:<line>} of a definition Camel read from a route file, as far as Camel knows it */
    private static String place(LineNumberAware definition) {
        return RouteFilePlaces.file(definition.getLocation())
                + (definition.getLineNumber() > 0 ? ":" + definition.getLineNumber() : "");
    }

    /** @return the endpoint {@code uri} names once its placeholders are resolved, without its options */
    private static String endpoint(CamelContext context, String uri) {
        if (uri == null) {
            return "";
        }
        String resolved = context.resolvePropertyPlaceholders(uri);
        int options = resolved.indexOf('?');
        return (options < 0 ? resolved : resolved.substring(0, options)).replaceFirst("^(\\w[\\w+.-]*):/*", "$1:");
    }
}
