package org.ingestquarantine.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import java.util.Collection;
import org.apache.camel.CamelContext;
import org.apache.camel.Endpoint;
import org.apache.camel.Route;
import org.apache.camel.component.log.LogEndpoint;
import org.apache.camel.support.LifecycleStrategySupport;
import org.slf4j.LoggerFactory;

/**
 * Shows a route's {@code log} steps by default: Camel's log EIP writes at INFO under the route's id (and a
 * {@code to: log:<name>} endpoint under {@code <name>}), and our logback.xml keeps every other logger at WARN. As
 * each route (each {@code log:} endpoint) is added, the logger named by its id (its name) is set to INFO, unless the
 * logback configuration in force gives that logger a level of its own or already shows INFO there (e.g. a root at
 * DEBUG). Another SLF4J backend than logback is left to its own configuration.
 */
final class RouteLogLevels extends LifecycleStrategySupport {

    private RouteLogLevels() {
    }

    /** @param context the context whose routes' log steps are to be shown, from the routes added from now on */
    static void install(CamelContext context) {
        context.addLifecycleStrategy(new RouteLogLevels());
    }

    @Override
    public void onRoutesAdd(Collection<Route> routes) {
        for (Route route : routes) {
            showInfo(route.getRouteId());
        }
    }

    @Override
    public void onEndpointAdd(Endpoint endpoint) {
        if (endpoint instanceof LogEndpoint log && log.getLoggerName() != null) {
            showInfo(log.getLoggerName());
        }
    }

    private static void showInfo(String name) {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
            Logger logger = logback.getLogger(name);
            if (logger.getLevel() == null && !logger.isInfoEnabled()) {
                logger.setLevel(Level.INFO);
            }
        }
    }
}
