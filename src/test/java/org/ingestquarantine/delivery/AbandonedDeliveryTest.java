package org.ingestquarantine.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.camel.Exchange;
import org.apache.camel.Ordered;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.Synchronization;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.SynchronizationAdapter;
import org.apache.camel.support.UnitOfWorkHelper;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.metrics.SourceTags;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.junit.jupiter.api.Test;

/**
 * Ensures an abandoned delivery's attempt is closed before the consumer's acknowledgement, in the order Camel's
 * {@code UnitOfWorkHelper.doneSynchronizations} runs an exchange's synchronizations (reversed, then sorted by
 * {@link Ordered}), wherever the consumer's own synchronization sits, and only when the delivery has no outcome.
 */
class AbandonedDeliveryTest {

    private final List<String> order = new CopyOnWriteArrayList<>();
    private final PipelineMetrics metrics = new PipelineMetrics(new SimpleMeterRegistry(), SourceTags.of(java.util.Set.of()));

    /** The consumer's acknowledgement as the SQS consumer adds it: a plain synchronization, no order of its own. */
    private final Synchronization ack = new SynchronizationAdapter() {
        @Override
        public void onComplete(Exchange exchange) {
            order.add("ack");
        }
    };

    @Test
    void shouldCloseTheAttemptBeforeTheAcknowledgementAddedBeforeOrAfterIt() {
        for (boolean ackFirst : new boolean[] {true, false}) {
            order.clear();
            AbandonedDelivery abandoned = new AbandonedDelivery(7L, (id, outcome) -> order.add(id + "=" + outcome.code()),
                    metrics);
            Exchange exchange = new DefaultExchange(new DefaultCamelContext());
            List<Synchronization> syncs = ackFirst ? List.of(ack, abandoned) : List.of(abandoned, ack);
            UnitOfWorkHelper.doneSynchronizations(exchange, syncs);
            assertThat(order).as("ack added %s", ackFirst ? "first" : "last").containsExactly("7=abandoned", "ack");
            assertThat(exchange.getProperty(PipelineKeys.OUTCOME)).isEqualTo(AbandonedDelivery.OUTCOME);
        }
    }

    @Test
    void shouldLeaveADeliveryWithAnOutcomeOrSettledElsewhereAlone() {
        AbandonedDelivery abandoned = new AbandonedDelivery(7L, (id, outcome) -> order.add(id + "=" + outcome.code()),
                metrics);
        Exchange indexed = new DefaultExchange(new DefaultCamelContext());
        indexed.setProperty(PipelineKeys.OUTCOME, "indexed");
        abandoned.onComplete(indexed);
        Exchange elsewhere = new DefaultExchange(new DefaultCamelContext());
        elsewhere.setProperty(PipelineKeys.SETTLED_ELSEWHERE, Boolean.TRUE);
        abandoned.onComplete(elsewhere);
        assertThat(order).isEmpty();
        assertThat(indexed.getProperty(PipelineKeys.OUTCOME)).isEqualTo("indexed");
    }
}
