package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.BeanInject;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClass;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ensures the route files keep the failure-storm breaker's part: routes/ingest-consumer.camel.yaml hands a paused
 * source's admitted delivery back unworked through the {@code on-source-paused} clause (released, its attempt closed
 * as storm_paused, never quarantined whatever its count, never counted as a failure), and routes/failure.camel.yaml
 * counts each failed delivery once, whether it is released or quarantined.
 */
class StormPauseRouteTest extends RouteTestBase {

    @BeanInject("failureStorm")
    RouteDoubles.Storm storm;

    @BeforeEach
    void forgetFailures() {
        storm.failures.clear();
    }

    @Test
    void shouldHandAPausedSourcesDeliveryBackUnworkedAndUncharged() {
        Exchange done = RouteTestSupport.deliver(context, RouteTestSupport.message("d.pdf"), "k6", 9,
                java.util.Map.of(RouteDoubles.PAUSED, true));

        assertThat(done.isFailed()).as("not acknowledged").isTrue();
        assertThat(stages.bodies).as("no stage ran").isEmpty();
        assertThat(recorder.recorded).as("never quarantined, whatever the count").isEmpty();
        assertThat(outcomes.closed).containsExactly("k6=storm_paused");
        assertThat(broker.releases).containsEntry("k6", RouteDoubles.HAND_BACK);
        assertThat(storm.failures).as("no failure of the document").isEmpty();
    }

    @Test
    void shouldCountEachFailedDeliveryOnceReleasedOrQuarantined() {
        stages.failAt("parse", RouteTestSupport.failure(ErrorClass.AMBIGUOUS_PARSE));

        deliver(1);
        deliver(2);

        assertThat(outcomes.closed).containsExactly("k1=released", "k1=quarantined");
        assertThat(storm.failures).extracting(c -> c.errorClass())
                .containsExactly(ErrorClass.AMBIGUOUS_PARSE, ErrorClass.AMBIGUOUS_PARSE);
    }
}
