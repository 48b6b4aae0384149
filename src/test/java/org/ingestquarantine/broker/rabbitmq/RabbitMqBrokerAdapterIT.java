package org.ingestquarantine.broker.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.camel.Exchange;
import org.apache.camel.component.springrabbit.SpringRabbitMQConstants;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.junit.jupiter.api.Test;

/**
 * Ensures the RabbitMQ adapter keys by message id (body hash only for an id-less DLQ message), and releases without
 * waiting, carrying the journal's count of started deliveries (the count itself: {@link RabbitMqConsumerKilledIT}).
 */
class RabbitMqBrokerAdapterIT {

    private final RabbitMqBrokerAdapter adapter = new RabbitMqBrokerAdapter(null, 10);

    @Test
    void shouldKeyByMessageIdElseByBodyHash() {
        assertThat(adapter.deliveryKey(exchange("m-1", null))).isEqualTo("rabbitmq:m-1");
        Exchange anonymous = exchange(null, null);
        assertThat(adapter.deliveryKey(anonymous)).isEqualTo(RabbitMqBrokerAdapter.bodyKey("{\"doc_id\":\"d\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .startsWith("rabbitmq:sha256:").hasSize("rabbitmq:sha256:".length() + 32);
    }

    @Test
    void shouldHandTheReleaseToTheAdviceWithoutWaiting() {
        Exchange worked = exchange("m-1", null);
        worked.setProperty(PipelineKeys.ATTEMPT_ID, 7L);
        worked.setProperty(PipelineKeys.DELIVERY_COUNT, 3);
        adapter.release(worked, Duration.ofSeconds(30));
        assertThat(ReleaseRequest.take()).isEqualTo(new ReleaseRequest(Duration.ofSeconds(30), 3));
        assertThat(ReleaseRequest.take()).isNull();
    }

    /** A delivery handed back unworked (no attempt opened: another was live) does not count. */
    @Test
    void shouldNotCountADeliveryHandedBackUnworked() {
        Exchange handedBack = exchange("m-1", 3L);
        handedBack.setProperty(PipelineKeys.DELIVERY_COUNT, 3);
        adapter.release(handedBack, Duration.ofSeconds(5));
        assertThat(ReleaseRequest.take()).isEqualTo(new ReleaseRequest(Duration.ofSeconds(5), 2));
    }

    private static Exchange exchange(String messageId, Long deliveryCount) {
        Exchange e = new DefaultExchange(new DefaultCamelContext());
        e.getIn().setBody("{\"doc_id\":\"d\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        if (messageId != null) {
            e.getIn().setHeader(SpringRabbitMQConstants.MESSAGE_ID, messageId);
        }
        if (deliveryCount != null) {
            e.getIn().setHeader("x-delivery-count", deliveryCount);
        }
        return e;
    }
}
