package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.builder.NotifyBuilder;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.junit.jupiter.api.Test;

/** Ensures routes/release.camel.yaml hands the message back with the decided back-off and closes the attempt. */
class ReleaseRouteTest extends RouteTestBase {

    @Test
    void shouldReleaseWithTheBackoffOnTheExchangeAndCloseTheAttempt() {
        NotifyBuilder released = new NotifyBuilder(context).fromRoute("release").whenDone(1).create();
        Exchange exchange = new DefaultExchange(context);
        exchange.getIn().setHeader(RouteDoubles.KEY, "k9");
        exchange.setProperty(PipelineKeys.DELIVERY_KEY, "k9");
        exchange.setProperty(PipelineKeys.BACKOFF, Duration.ofMillis(4321));
        context.createProducerTemplate().send("direct:release", exchange);
        assertThat(released.matches(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(broker.releases).containsEntry("k9", Duration.ofMillis(4321));
        assertThat(outcomes.closed).containsExactly("k9=released");
    }
}
