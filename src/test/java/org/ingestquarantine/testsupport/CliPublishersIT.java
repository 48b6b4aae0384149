package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** Ensures the command-line producers a user would use deliver an ingest message to our RabbitMQ and Kafka topology. */
class CliPublishersIT {
    private static final String MESSAGE =
            "{\"source\":\"local\",\"doc_id\":\"cli-1\",\"uri\":\"file:///data/in/cli-1.pdf\",\"ingest_seq\":1}";

    @Test
    void shouldPublishWithAmqpPublishToTheIngestExchange() throws Exception {
        try (AutoCloseable share = RabbitMqAppLock.share()) {
            RabbitMqBroker rabbit = RabbitMqBroker.ensureRunning();
            rabbit.purgeQueues();

            CliPublishers.amqpPublish(rabbit.amqpUri(), "ingest", "ingest", MESSAGE);

            try (Connection c = rabbit.connectionFactory().newConnection(); Channel ch = c.createChannel()) {
                GetResponse got = ch.basicGet("ingest", true);
                assertThat(got).as("a message in queue ingest").isNotNull();
                assertThat(new String(got.getBody(), StandardCharsets.UTF_8)).isEqualTo(MESSAGE);
                assertThat(got.getProps().getContentType()).isEqualTo("application/json");
                assertThat(got.getProps().getDeliveryMode()).as("persistent").isEqualTo(2);
            } finally {
                rabbit.purgeQueues();
            }
        }
    }

    @Test
    void shouldProduceWithKcatToTheIngestTopic() {
        try (KafkaKraftBroker kafka = KafkaKraftBroker.start()) {
            kafka.createTopic(KafkaTopicSpec.forTopic("ingest"));

            CliPublishers.kcatProduce(kafka.bootstrapServers(), "ingest", "cli-1", MESSAGE);

            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                    ConsumerConfig.GROUP_ID_CONFIG, "cli-test",
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of("ingest"));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (got.isEmpty() && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(got::add);
                }
            }
            assertThat(got).singleElement().satisfies(r -> {
                assertThat(r.key()).isEqualTo("cli-1");
                assertThat(r.value()).isEqualTo(MESSAGE);
            });
        }
    }
}
