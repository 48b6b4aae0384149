package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.MessageProperties;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Ensures the machine's RabbitMQ runs our imported topology: routing, DLX, delivery-limit backstop, restart. */
class RabbitMqBrokerIT {
    private static RabbitMqBroker rabbit;
    private static AutoCloseable share;

    @BeforeAll
    static void ensureBroker() {
        long t0 = System.nanoTime();
        share = RabbitMqAppLock.share();
        rabbit = RabbitMqBroker.ensureRunning();
        System.out.printf("RabbitMqBroker ready in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
    }

    @BeforeEach
    void purge() {
        rabbit.purgeQueues();
    }

    @AfterAll
    static void leaveQueuesEmpty() throws Exception {
        try {
            rabbit.purgeQueues();
        } finally {
            share.close();
        }
    }

    @Test
    void shouldDeclareIngestAsAQuorumQueueWithTheBackstopArguments() {
        Exec listed = Exec.run(List.of("rabbitmqctl", "-q", "list_queues", "-p", rabbit.vhost(), "name", "type", "durable", "arguments"),
                Duration.ofSeconds(30));

        String ingest = listed.output().lines().filter(l -> l.startsWith("ingest\t")).findFirst().orElseThrow();
        assertThat(ingest).contains("\tquorum\ttrue\t", "{\"x-delivery-limit\",10}",
                "{\"x-dead-letter-exchange\",\"ingest.dlx\"}", "{\"x-dead-letter-strategy\",\"at-least-once\"}",
                "{\"x-overflow\",\"reject-publish\"}");
        assertThat(listed.output()).containsPattern("(?m)^ingest\\.dlq\\tquorum\\ttrue\\t");
    }

    @Test
    void shouldRouteFromTheIngestExchangeToTheIngestQueue() throws Exception {
        publish("{\"doc_id\":\"r-1\"}");

        assertThat(rabbit.messageCount("ingest")).isEqualTo(1);
        assertThat(rabbit.messageCount("ingest.dlq")).isZero();
    }

    @Test
    void shouldDeadLetterARejectedMessageIntoTheDlq() throws Exception {
        publish("{\"doc_id\":\"r-2\"}");
        try (Connection c = rabbit.connectionFactory().newConnection(); Channel ch = c.createChannel()) {
            GetResponse got = ch.basicGet("ingest", false);
            ch.basicReject(got.getEnvelope().getDeliveryTag(), false);

            GetResponse dead = poll(ch, "ingest.dlq");
            assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"doc_id\":\"r-2\"}");
            assertThat(firstDeath(dead)).containsEntry("reason", longString("rejected"));
        }
    }

    @Test
    void shouldDeadLetterAtTheDeliveryLimitAfterElevenDeliveries() throws Exception {
        publish("{\"doc_id\":\"r-3\"}");
        List<Long> deliveryCounts = new ArrayList<>();
        try (Connection c = rabbit.connectionFactory().newConnection(); Channel ch = c.createChannel()) {
            GetResponse got;
            while ((got = poll(ch, "ingest")) != null) {
                deliveryCounts.add(header(got, "x-delivery-count"));
                ch.basicNack(got.getEnvelope().getDeliveryTag(), false, true);
            }
            GetResponse dead = poll(ch, "ingest.dlq");
            assertThat(firstDeath(dead)).containsEntry("reason", longString("delivery_limit"));
        }
        // x-delivery-count counts earlier returns (absent or 0 on the first delivery): 11 deliveries, 0..10
        assertThat(deliveryCounts).extracting(n -> n == null ? 0L : n)
                .containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
    }

    @Test
    void shouldKeepAPersistentMessageAcrossStopAppAndStartApp() throws Exception {
        publish("{\"doc_id\":\"r-4\"}");

        long t0 = System.nanoTime();
        RabbitMqAppLock.exclusively(() -> {
            rabbit.stopApp();
            assertThat(rabbit.answersAmqp()).isFalse();
            rabbit.startApp();
        });
        System.out.printf("RabbitMQ stop_app + start_app took %d ms%n", (System.nanoTime() - t0) / 1_000_000);

        assertThat(rabbit.messageCount("ingest")).isEqualTo(1);
    }

    private static void publish(String json) throws Exception {
        try (Connection c = rabbit.connectionFactory().newConnection(); Channel ch = c.createChannel()) {
            ch.confirmSelect();
            AMQP.BasicProperties props = MessageProperties.PERSISTENT_TEXT_PLAIN.builder().contentType("application/json").build();
            ch.basicPublish("ingest", "ingest", true, props, json.getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(5_000);
        }
    }

    /** Gets (without acknowledging) the next message of {@code queue}, waiting up to 1 s; null if none came. */
    private static GetResponse poll(Channel ch, String queue) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(1).toNanos();
        GetResponse got = ch.basicGet(queue, false);
        while (got == null && System.nanoTime() < deadline) {
            Thread.sleep(20);
            got = ch.basicGet(queue, false);
        }
        return got;
    }

    private static Long header(GetResponse r, String name) {
        Map<String, Object> headers = r.getProps().getHeaders();
        Object value = headers == null ? null : headers.get(name);
        return value == null ? null : ((Number) value).longValue();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> firstDeath(GetResponse r) {
        return ((List<Map<String, Object>>) r.getProps().getHeaders().get("x-death")).get(0);
    }

    private static Object longString(String s) {
        return com.rabbitmq.client.impl.LongStringHelper.asLongString(s);
    }
}
