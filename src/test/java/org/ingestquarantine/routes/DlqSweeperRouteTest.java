package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.Exchange;
import org.junit.jupiter.api.Test;

/** Ensures routes/dlq-sweeper.camel.yaml hands every dead-lettered message to the sweeper and acknowledges it. */
class DlqSweeperRouteTest extends RouteTestBase {

    @Test
    void shouldSweepEveryDeadLetteredMessage() {
        Exchange done = context.createProducerTemplate().request("direct:dlq-sweeper",
                e -> e.getIn().setBody(RouteTestSupport.message("dead.pdf")));
        assertThat(done.isFailed()).isFalse();
        assertThat(sweeper.swept).singleElement().asString().contains("dead.pdf");
        assertThat(outcomes.closed).isEmpty();
    }
}
