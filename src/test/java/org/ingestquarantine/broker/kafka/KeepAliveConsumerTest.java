package org.ingestquarantine.broker.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Ensures the calls camel-kafka makes reach {@link KeepAliveConsumer}'s behaviours through its proxy, on Kafka's
 * {@link MockConsumer} (no broker; {@code KeepAliveConsumerIT} shows the same on a real one): a record not committed
 * past is read again at the next poll, a committed one is not; a commit refused during a rebalance does not reach
 * the caller and is made after the next poll; a pause of the caller's own is not undone by that poll.
 */
class KeepAliveConsumerTest {

    private static final TopicPartition TP = new TopicPartition("ingest", 0);

    /** While true, a commit with a timeout (camel-kafka's) is refused as during a rebalance. */
    private volatile boolean rebalancing;
    private MockConsumer<String, String> kafka;
    private KeepAliveConsumer<String, String> keepAlive;
    private Consumer<String, String> consumer;

    @BeforeEach
    void assign() {
        kafka = new MockConsumer<>(OffsetResetStrategy.EARLIEST) {
            @Override
            public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
                if (rebalancing) {
                    throw new RebalanceInProgressException("rebalancing");
                }
                super.commitSync(offsets, timeout);
            }
        };
        kafka.assign(List.of(TP));
        kafka.updateBeginningOffsets(Map.of(TP, 0L));
        keepAlive = KeepAliveConsumer.around(kafka);
        consumer = keepAlive.consumer();
    }

    @Test
    void shouldReadARecordNotCommittedAgainAtTheNextPoll() {
        kafka.addRecord(record(0));
        assertThat(offsets(consumer.poll(Duration.ZERO))).containsExactly(0L);

        kafka.addRecord(record(0));
        kafka.addRecord(record(1));
        assertThat(offsets(consumer.poll(Duration.ZERO))).as("not committed: read again first").startsWith(0L);
    }

    @Test
    void shouldGoOnBehindACommittedRecord() {
        kafka.addRecord(record(0));
        consumer.poll(Duration.ZERO);
        consumer.commitSync(Map.of(TP, new OffsetAndMetadata(1)), Duration.ofSeconds(5));

        consumer.poll(Duration.ZERO);
        assertThat(consumer.position(TP)).as("not sought back").isEqualTo(1);
    }

    @Test
    void shouldKeepACommitRefusedDuringARebalanceAndMakeItAfterTheNextPoll() {
        kafka.addRecord(record(0));
        consumer.poll(Duration.ZERO);
        rebalancing = true;
        consumer.commitSync(Map.of(TP, new OffsetAndMetadata(1)), Duration.ofSeconds(5));
        assertThat(kafka.committed(Set.of(TP))).as("refused").doesNotContainKey(TP);
        rebalancing = false;

        consumer.poll(Duration.ZERO);
        assertThat(kafka.committed(Set.of(TP))).as("made after the poll").containsEntry(TP, new OffsetAndMetadata(1));
        assertThat(consumer.position(TP)).as("its record settled: not read again").isEqualTo(1);
    }

    @Test
    void shouldResumeWhatAKeepAlivePollPausedButNotAPauseOfTheCallers() throws Exception {
        consumer.poll(Duration.ZERO);
        Thread.sleep(5);
        assertThat(keepAlive.keepAlive(Duration.ofMillis(1))).as("a keep-alive poll").isTrue();
        assertThat(kafka.paused()).containsExactly(TP);

        consumer.poll(Duration.ZERO);
        assertThat(kafka.paused()).as("resumed by the owner's poll").isEmpty();

        Thread.sleep(5);
        keepAlive.keepAlive(Duration.ofMillis(1));
        consumer.pause(List.of(TP));
        consumer.poll(Duration.ZERO);
        assertThat(kafka.paused()).as("the caller's own pause stays").containsExactly(TP);
    }

    @Test
    void shouldRetireOnClose() {
        consumer.close();
        assertThat(keepAlive.retired()).isTrue();
        assertThat(kafka.closed()).isTrue();
    }

    private static ConsumerRecord<String, String> record(long offset) {
        return new ConsumerRecord<>(TP.topic(), TP.partition(), offset, "k" + offset, "v" + offset);
    }

    private static List<Long> offsets(Iterable<ConsumerRecord<String, String>> records) {
        List<Long> offsets = new java.util.ArrayList<>();
        records.forEach(r -> offsets.add(r.offset()));
        return offsets;
    }
}
