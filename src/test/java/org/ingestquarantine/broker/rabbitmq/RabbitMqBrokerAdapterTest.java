package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.component.springrabbit.SpringRabbitMQConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.junit.jupiter.api.Test;

/** Ensures the RabbitMQ adapter counts our deliveries header plus x-delivery-count (absent = 0), keys by message id (body hash only for an id-less DLQ message), and releases without waiting. */
class RabbitMqBrokerAdapterTest {

    private final RabbitMqBrokerAdapter adapter = new RabbitMqBrokerAdapter();

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
        assertThat(adapter.deliveryKey(anonymous)).isEqualTo(RabbitMqBrokerAdapter.bodyKey("{\"doc_id\":\"d\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .startsWith("rabbitmq:sha256:").hasSize("rabbitmq:sha256:".length() + 32);
    }

    @Test
    void shouldAddOurDeliveriesHeaderToTheBrokersCount() {
        Exchange copy = exchange("m-1", 2L);
        copy.getIn().setHeader(RabbitMqBrokerAdapter.DELIVERIES_HEADER, 3);
        assertThat(adapter.deliveryCount(copy)).isEqualTo(6);
    }

    @Test
    void shouldHandTheReleaseToTheAdviceWithoutWaiting() {
        Exchange worked = exchange("m-1", null);
        worked.setProperty(PipelineKeys.ATTEMPT_ID, 7L);
        adapter.release(worked, Duration.ofSeconds(30));
        assertThat(ReleaseRequest.take()).isEqualTo(new ReleaseRequest(Duration.ofSeconds(30), true));
        assertThat(ReleaseRequest.take()).isNull();
    }

    /** A delivery handed back unworked (no attempt opened: another was live) does not count. */
    @Test
    void shouldNotCountADeliveryHandedBackUnworked() {
        adapter.release(exchange("m-1", 3L), Duration.ofSeconds(5));
        assertThat(ReleaseRequest.take()).isEqualTo(new ReleaseRequest(Duration.ofSeconds(5), false));
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
