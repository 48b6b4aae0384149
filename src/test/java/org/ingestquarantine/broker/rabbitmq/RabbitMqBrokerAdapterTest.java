package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.component.springrabbit.SpringRabbitMQConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.Test;

/** Ensures the RabbitMQ adapter reads x-delivery-count as earlier returns (absent = 0), keys by message id or body hash, and caps the release wait. */
class RabbitMqBrokerAdapterTest {

    private final RabbitMqBrokerAdapter adapter = new RabbitMqBrokerAdapter(Duration.ofMillis(50));

    @Test
    void shouldCountDeliveriesAsDeliveryCountPlusOne() {
        assertThat(adapter.deliveryCount(exchange(null, null))).isEqualTo(1);
        assertThat(adapter.deliveryCount(exchange(null, 0L))).isEqualTo(1);
        assertThat(adapter.deliveryCount(exchange(null, 6L))).isEqualTo(7);
    }

    @Test
    void shouldKeyByMessageIdElseByBodyHash() {
        assertThat(adapter.deliveryKey(exchange("m-1", null))).isEqualTo("rabbitmq:m-1");
        Exchange anonymous = exchange(null, null);
        assertThat(adapter.deliveryKey(anonymous)).isEqualTo(RabbitMqBrokerAdapter.bodyKey("{\"doc_id\":\"d\"}"))
                .startsWith("rabbitmq:sha256:").hasSize("rabbitmq:sha256:".length() + 32);
    }

    @Test
    void shouldCapTheReleaseWait() {
        long t0 = System.nanoTime();
        adapter.release(exchange("m-1", null), Duration.ofSeconds(30));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
    }

    private static Exchange exchange(String messageId, Long deliveryCount) {
        Exchange e = new DefaultExchange(new DefaultCamelContext());
        e.getIn().setBody("{\"doc_id\":\"d\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        if (messageId != null) {
            e.getIn().setHeader(SpringRabbitMQConstants.MESSAGE_ID, messageId);
        }
        if (deliveryCount != null) {
            e.getIn().setHeader(RabbitMqBrokerAdapter.DELIVERY_COUNT_HEADER, deliveryCount);
        }
        return e;
    }
}
