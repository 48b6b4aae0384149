package org.ingestquarantine.routes;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.camel.Exchange;
import org.ingestquarantine.failure.ErrorClass;
import org.junit.jupiter.api.Test;

/**
 * Ensures routes/ingest-consumer.camel.yaml admits a delivery before any work, quarantines what cannot be
 * read or whose earlier attempts died without working on it, and discards the work file whatever the outcome.
 */
class IngestConsumerRouteTest extends RouteTestBase {

    @Test
    void shouldRunAReadableMessageThroughTheDocumentPipelineAndAcknowledgeIt() {
        Exchange done = deliver(1);
        assertThat(done.isFailed()).isFalse();
        assertThat(outcomes.closed).containsExactly("k1=indexed");
    }

    @Test
    void shouldQuarantineAnUnreadableBodyOnItsFirstDelivery() {
        Exchange done = RouteTestSupport.deliver(context, "{\"not\": \"a message\"}", "k2", 1);
        assertThat(done.isFailed()).isFalse();
        assertThat(stages.bodies).as("no stage ran").isEmpty();
        assertThat(recorder.recorded).singleElement().satisfies(c -> {
            assertThat(c.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(c.reasonCode()).isEqualTo("invalid_message");
        });
        assertThat(recorder.stages).containsExactly("receive");
    }

    @Test
    void shouldQuarantineADeliveryWhoseEarlierAttemptsDiedWithoutWorkingOnIt() {
        Exchange exchange = new org.apache.camel.support.DefaultExchange(context);
        exchange.getIn().setBody(RouteTestSupport.message("d.pdf"));
        exchange.getIn().setHeader(RouteDoubles.KEY, "k3");
        exchange.getIn().setHeader(RouteDoubles.COUNT, 3);
        exchange.getIn().setHeader(RouteDoubles.DEATHS, 2);
        Exchange done = context.createProducerTemplate().send("direct:ingest", exchange);
        assertThat(done.isFailed()).isFalse();
        assertThat(stages.bodies).isEmpty();
        assertThat(recorder.recorded).singleElement()
                .satisfies(c -> assertThat(c.errorClass()).isEqualTo(ErrorClass.RESOURCE_FATAL));
    }

    @Test
    void shouldDiscardTheWorkFileWhenTheDeliveryEndsWhateverItsOutcome() {
        deliver(1);
        assertThat(stages.discarded).hasSize(1);
        stages.failAt("parse", RouteTestSupport.failure(ErrorClass.AMBIGUOUS_PARSE));
        deliver(1);
        assertThat(outcomes.closed).containsExactly("k1=indexed", "k1=released");
        assertThat(stages.discarded).hasSize(2);
    }

    @Test
    void shouldHandADeliveryBackUncountedWhileAnotherAttemptAtItIsLive() {
        Exchange exchange = new org.apache.camel.support.DefaultExchange(context);
        exchange.getIn().setBody(RouteTestSupport.message("d.pdf"));
        exchange.getIn().setHeader(RouteDoubles.KEY, "k4");
        exchange.getIn().setHeader(RouteDoubles.COUNT, 7);
        exchange.getIn().setHeader(RouteDoubles.LIVE, true);
        Exchange done = context.createProducerTemplate().send("direct:ingest", exchange);
        assertThat(done.isFailed()).as("not acknowledged").isTrue();
        assertThat(stages.bodies).as("no stage ran").isEmpty();
        assertThat(recorder.recorded).as("never quarantined, whatever the count").isEmpty();
        assertThat(broker.releases).containsEntry("k4", java.time.Duration.ofSeconds(5));
    }

    @Test
    void shouldAcknowledgeWithoutWorkADeliveryWhoseMessageALiveAttemptSettled() {
        Exchange exchange = new org.apache.camel.support.DefaultExchange(context);
        exchange.getIn().setBody(RouteTestSupport.message("d.pdf"));
        exchange.getIn().setHeader(RouteDoubles.KEY, "k5");
        exchange.getIn().setHeader(RouteDoubles.SETTLED_ELSEWHERE, true);
        Exchange done = context.createProducerTemplate().send("direct:ingest", exchange);
        assertThat(done.isFailed()).isFalse();
        assertThat(stages.bodies).isEmpty();
        assertThat(recorder.recorded).isEmpty();
        assertThat(outcomes.closed).isEmpty();
        assertThat(broker.releases).doesNotContainKey("k5");
    }
}
