package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.camel.CamelContext;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.Test;

/** The consumer route stopped on its own stops admission; started again in a running context, it admits again. */
class ReleasingShutdownStrategyTest {

    @Test
    void consumerRouteStartedAgainAdmitsAgain() throws Exception {
        InFlightAttempts inFlight = new InFlightAttempts();
        AtomicInteger stopped = new AtomicInteger();
        AtomicInteger restarted = new AtomicInteger();
        try (CamelContext context = new DefaultCamelContext()) {
            new ReleasingShutdownStrategy(inFlight, null, null, stopped::incrementAndGet, restarted::incrementAndGet)
                    .install(context);
            context.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("direct:in").routeId(ReleasingShutdownStrategy.CONSUMER_ROUTE).log("in");
                    from("direct:other").routeId("other").log("other");
                }
            });
            context.start();
            assertThat(inFlight.isStopping()).isFalse();

            context.getRouteController().stopRoute("other");
            assertThat(inFlight.isStopping()).as("another route's stop admits on").isFalse();

            context.getRouteController().stopRoute(ReleasingShutdownStrategy.CONSUMER_ROUTE);
            assertThat(inFlight.isStopping()).isTrue();
            assertThat(stopped).hasValue(1);

            context.getRouteController().startRoute(ReleasingShutdownStrategy.CONSUMER_ROUTE);
            assertThat(inFlight.isStopping()).as("admitting again once the consumer route starts again").isFalse();
            assertThat(restarted).hasValue(1);

            context.stop();
            assertThat(inFlight.isStopping()).as("the context's stop is final").isTrue();
            assertThat(restarted).hasValue(1);
        }
    }
}
