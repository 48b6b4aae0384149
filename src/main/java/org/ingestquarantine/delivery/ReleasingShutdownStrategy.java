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

    /**
     * @param inFlight the open attempts
     * @param journal where abandoned attempts are closed
     * @param broker hands abandoned messages back
     * @param onStopping runs once the context is stopping, before the wait for in-flight exchanges
     */
    public ReleasingShutdownStrategy(InFlightAttempts inFlight, AttemptJournal journal, BrokerAdapter broker,
                                     Runnable onStopping) {
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

    @Override
    protected void shutdownRoutesNow(List<RouteStartupOrder> routes) {
        int abandoned = inFlight.abandonAll(journal, broker);
        if (abandoned > 0) {
            LOG.warn("shutdown timeout reached: {} document(s) released unfinished", abandoned);
        }
        super.shutdownRoutesNow(routes);
    }
}
