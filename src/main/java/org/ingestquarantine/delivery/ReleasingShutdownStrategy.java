package org.ingestquarantine.delivery;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.camel.CamelContext;
import org.apache.camel.impl.engine.DefaultShutdownStrategy;
import org.apache.camel.spi.RouteStartupOrder;
import org.apache.camel.spi.ShutdownStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Camel's graceful shutdown (consumers suspended first; in-flight exchanges given
 * {@code camel.main.shutdown-timeout} seconds), with steps of ours:
 * <ul>
 *   <li>when the context starts stopping, or the consumer route {@value #CONSUMER_ROUTE} is stopped on its own
 *       (the {@code ingest} command stops consuming before it reads its summary), no further delivery is admitted ({@link InFlightAttempts#stopAdmitting}:
 *       a message a broker client still hands over is given back unworked), and {@code onStopping} runs (the
 *       application cancels its source requests in flight: a document still fetching is released, see
 *       {@link FailureDisposition});</li>
 *   <li>when the consumer route is started again after it was stopped on its own (the context still running),
 *       deliveries are admitted again ({@link InFlightAttempts#resumeAdmitting}) and {@code onRestart} runs
 *       (source requests may be sent again), before its consumer takes any message;</li>
 *   <li>when the timeout runs out, before Camel forces the routes down, every attempt still open is
 *       abandoned ({@link InFlightAttempts#abandonAll}): closed as released, its message handed back, so a
 *       shutdown is never counted as a death.</li>
 * </ul>
 */
public final class ReleasingShutdownStrategy extends DefaultShutdownStrategy {

    /** Route id of the consumer route (routes/ingest-consumer.camel.yaml). */
    public static final String CONSUMER_ROUTE = "ingest-consumer";

    private static final Logger LOG = LoggerFactory.getLogger(ReleasingShutdownStrategy.class);

    private final InFlightAttempts inFlight;
    private final AttemptJournal journal;
    private final BrokerAdapter broker;
    private final Runnable onStopping;
    private final Runnable onRestart;

    /**
     * @param inFlight the open attempts
     * @param journal where abandoned attempts are closed
     * @param broker hands abandoned messages back
     * @param onStopping runs once the context is stopping, before the wait for in-flight exchanges
     * @param onRestart runs when the consumer route starts again after a stop of its own, undoing {@code onStopping}
     */
    public ReleasingShutdownStrategy(InFlightAttempts inFlight, AttemptJournal journal, BrokerAdapter broker,
                                     Runnable onStopping, Runnable onRestart) {
        this.onRestart = onRestart;
        this.inFlight = inFlight;
        this.journal = journal;
        this.broker = broker;
        this.onStopping = onStopping;
    }

    /**
     * Installs this strategy in place of the context's, keeping the settings already given to that one
     * (Camel Main's {@code camel.main.shutdown-*}; settings applied later reach this one).
     *
     * @param context the context
     */
    public void install(CamelContext context) {
        ShutdownStrategy current = context.getShutdownStrategy();
        setTimeout(current.getTimeout());
        setTimeUnit(current.getTimeUnit());
        setShutdownNowOnTimeout(current.isShutdownNowOnTimeout());
        setSuppressLoggingOnTimeout(current.isSuppressLoggingOnTimeout());
        setShutdownRoutesInReverseOrder(current.isShutdownRoutesInReverseOrder());
        setLogInflightExchangesOnTimeout(current.isLogInflightExchangesOnTimeout());
        setCamelContext(context);
        context.setShutdownStrategy(this);
        ConsumerRestart restart = new ConsumerRestart();
        org.apache.camel.support.service.ServiceHelper.startService(restart);
        context.getManagementStrategy().addEventNotifier(restart);
    }

    @Override
    protected boolean doShutdown(CamelContext context, List<RouteStartupOrder> routes, long timeout, TimeUnit timeUnit,
                                 boolean suspendOnly, boolean abortAfterTimeout, boolean forceShutdown) throws Exception {
        if (!suspendOnly && (context.isStopping()
                || routes.stream().anyMatch(r -> CONSUMER_ROUTE.equals(r.getRoute().getRouteId())))) {
            if (inFlight.size() > 0) {
                LOG.info("stopping: no new deliveries; {} document(s) in flight get up to {} s to finish, fetches in"
                        + " progress are released at once", inFlight.size(), timeUnit.toSeconds(timeout));
            }
            inFlight.stopAdmitting();
            onStopping.run();
        }
        return super.doShutdown(context, routes, timeout, timeUnit, suspendOnly, abortAfterTimeout, forceShutdown);
    }

    /** Admits again when the consumer route is starting (before its consumer starts) in a running context. */
    private final class ConsumerRestart extends org.apache.camel.support.EventNotifierSupport {

        ConsumerRestart() {
            setupIgnore(true);
            setIgnoreRouteEvents(false);
        }

        @Override
        public boolean isEnabled(org.apache.camel.spi.CamelEvent event) {
            return event instanceof org.apache.camel.spi.CamelEvent.RouteStartingEvent;
        }

        @Override
        public void notify(org.apache.camel.spi.CamelEvent event) {
            org.apache.camel.Route route = ((org.apache.camel.spi.CamelEvent.RouteStartingEvent) event).getRoute();
            if (CONSUMER_ROUTE.equals(route.getRouteId()) && inFlight.isStopping()
                    && !route.getCamelContext().isStopping()) {
                LOG.info("the consumer route starts again: deliveries are admitted again");
                inFlight.resumeAdmitting();
                onRestart.run();
            }
        }
    }

    @Override
    protected void shutdownRoutesNow(List<RouteStartupOrder> routes) {
        int abandoned = inFlight.abandonAll(journal, broker);
        if (abandoned > 0) {
            LOG.warn("shutdown timeout reached: {} document(s) released unfinished", abandoned);
        }
        super.shutdownRoutesNow(routes);
    }
}
