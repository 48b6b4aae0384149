package org.ingestquarantine.broker.kafka;

import java.time.Duration;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.camel.component.kafka.consumer.KafkaManualCommit;
import org.apache.camel.spi.Synchronization;
import org.ingestquarantine.delivery.AttemptJournal;
import org.ingestquarantine.delivery.AttemptOutcome;
import org.ingestquarantine.delivery.BrokerAdapter;
import org.ingestquarantine.delivery.FailureDisposition;
import org.ingestquarantine.delivery.InFlightAttempts;
import org.ingestquarantine.delivery.ReleaseWait;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka: the key is {@code kafka:<topic>/<partition>/<offset>@<topic id>}, the count comes from the attempt
 * journal, and the offset is committed only after the outcome is. The topic id ({@link KafkaTopicIds}) makes
 * the key unique per record: a re-created topic, or a new cluster, restarts its offsets at 0 under a new id,
 * so its records start from delivery count 1 instead of inheriting the old records' attempts.
 *
 * <p><b>Count.</b> Kafka keeps no delivery count, so the count is {@link AttemptJournal#attempts} for the
 * key + 1. {@link DeliveryGuard#admit} opens this delivery's attempt with that same count BEFORE any work,
 * so the next delivery of the record reads one more, also after a crash (an attempt never closed still
 * counts). A partition moved by a rebalance while its record is in work is read again by its new owner,
 * whose {@link DeliveryGuard} finds the first attempt live and waits for it rather than counting or repeating it.
 * The count is read from PostgreSQL: when that fails, the delivery fails as a database outage before
 * any work, and the record is read again from its offset.
 *
 * <p><b>Acknowledge.</b> The consumer runs with {@code autoCommitEnable=false} and
 * {@code allowManualCommit=true} and no commit factory, so camel-kafka 4.17 uses its no-op commit manager
 * and commits nothing by itself. When the exchange completes (indexed, skipped, or quarantined with the
 * record committed) this adapter commits exactly the record's own partition at offset + 1 (camel-kafka's
 * {@link KafkaManualCommit}, a synchronous {@code commitSync}). A quarantined record's copy for the dead-letter
 * topic ({@link KafkaDeadLetters}) is written with its quarantine record ({@link #addDeadLetterCopy}), and its
 * sender woken before the offset is committed. A failed exchange commits nothing.
 *
 * <p><b>Release.</b> {@link #release} closes the attempt as released, then waits the back-off on the
 * consumer thread, capped at {@code maxReleaseWait} (property {@code kafka.release-max-wait-ms}; keep it well under the consumer's {@code max.poll.interval.ms},
 * 300 s by default; the wait ends at once when the process starts stopping), and the exchange then fails. Its offset not committed, the same consumer seeks its
 * partition back to it before its next poll ({@link KeepAliveConsumer}), so the failed record comes back
 * first, without the consumer leaving its group. The partition waits behind the record, so a poison record
 * holds it for at most its class's bounded deliveries and back-offs.
 */
public final class KafkaBrokerAdapter implements BrokerAdapter {

    private static final String TRACKED = "iqKafkaTracked";
    /** Exchange property: the record as consumed ({@link KafkaDeadLetters.Origin}), for its dead-letter copy. */
    private static final String ORIGIN = "iqKafkaOrigin";
    private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerAdapter.class);

    private final AttemptJournal journal;
    private final KafkaTopicIds topicIds;
    private final KafkaDeadLetters deadLetters;
    private final Duration maxReleaseWait;
    private final InFlightAttempts inFlight;

    /**
     * @param journal the attempt journal, the only delivery counter Kafka has
     * @param topicIds the topics' ids, part of every key
     * @param deadLetters copies quarantined records to the dead-letter topic
     * @param maxReleaseWait the longest back-off one release waits; zero or negative = no wait
     * @param inFlight ends a release's wait when the process starts stopping
     */
    KafkaBrokerAdapter(AttemptJournal journal, KafkaTopicIds topicIds, KafkaDeadLetters deadLetters,
                       Duration maxReleaseWait, InFlightAttempts inFlight) {
        this.inFlight = inFlight;
        this.journal = journal;
        this.topicIds = topicIds;
        this.deadLetters = deadLetters;
        this.maxReleaseWait = maxReleaseWait.isNegative() ? Duration.ZERO : maxReleaseWait;
    }

    /**
     * @param topic a topic
     * @param partition a partition of it
     * @param offset a record's offset in it
     * @param topicId the topic's id
     * @return the delivery key of that record: {@code kafka:<topic>/<partition>/<offset>@<topic id>}
     */
    public static String key(String topic, int partition, long offset, String topicId) {
        return position(topic, partition, offset) + "@" + topicId;
    }

    /**
     * @return {@code kafka:<topic>/<partition>/<offset>}: where a record is, without the topic's identity
     *     (the leading part of its delivery key)
     */
    public static String position(String topic, int partition, long offset) {
        return "kafka:" + topic + "/" + partition + "/" + offset;
    }

    @Override
    public String deliveryKey(Exchange exchange) {
        track(exchange);
        return keyOf(exchange);
    }

    @Override
    public int deliveryCount(Exchange exchange) {
        track(exchange);
        return journal.attempts(keyOf(exchange)) + 1;
    }

    @Override
    public boolean countsInJournal() {
        return true;
    }

    /**
     * Adds the record's dead-letter copy (key and value as consumed, {@link KafkaDeadLetters}) to its quarantine
     * record's row: the record's statement writes it to the outbox in the same transaction.
     *
     * @param exchange a delivery being quarantined, its body the record's row
     */
    @Override
    public void addDeadLetterCopy(Exchange exchange) {
        KafkaDeadLetters.Origin origin = exchange.getProperty(ORIGIN, KafkaDeadLetters.Origin.class);
        if (origin == null) {
            throw new IllegalStateException("no consumed Kafka record on the exchange: " + KafkaBrokerAdapter.class.getSimpleName()
                    + ".deliveryKey was not asked first");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> row = exchange.getMessage().getBody(Map.class);
        if (row == null) {
            throw new IllegalStateException("the body is not the quarantine record's row");
        }
        deadLetters.addTo(origin, row);
    }

    @Override
    public void release(Exchange exchange, Duration delay) {
        Long attemptId = exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class);
        if (attemptId != null) {
            // closed before the wait, so that a consumer killed while waiting is not counted as a death
            journal.close(attemptId, AttemptOutcome.RELEASED);
        }
        // ended early when the process starts stopping: fail now; camel-kafka pauses the partition as the route is
        // suspended, so the record is read again from its offset by the next consumer, not by this stopping one
        ReleaseWait.sleep(delay, maxReleaseWait, inFlight);
    }

    /** @return true: the consumer seeks a released record's partition back to it, so it comes back first */
    @Override
    public boolean releaseComesBackFirst() {
        return true;
    }

    private String keyOf(Exchange exchange) {
        var in = exchange.getIn();
        String topic = in.getHeader(KafkaConstants.TOPIC, String.class);
        return key(topic, in.getHeader(KafkaConstants.PARTITION, Integer.class), in.getHeader(KafkaConstants.OFFSET, Long.class),
                topicIds.of(topic));
    }

    /** Arranges, once per exchange, the commit of this record's offset when the exchange completes. */
    private void track(Exchange exchange) {
        if (exchange.getProperty(TRACKED) != null) {
            return;
        }
        KafkaManualCommit commit = exchange.getIn().getHeader(KafkaConstants.MANUAL_COMMIT, KafkaManualCommit.class);
        if (commit == null) {
            throw new IllegalStateException("the Kafka record carries no " + KafkaConstants.MANUAL_COMMIT
                    + " header; configure the consumer with autoCommitEnable=false&allowManualCommit=true");
        }
        exchange.setProperty(TRACKED, Boolean.TRUE);
        String key = keyOf(exchange);
        exchange.setProperty(ORIGIN, KafkaDeadLetters.Origin.of(exchange));
        exchange.getExchangeExtension().addOnCompletion(new Synchronization() {
            @Override
            public void onComplete(Exchange done) {
                if (FailureDisposition.QUARANTINE.equals(done.getProperty(PipelineKeys.DISPOSITION))) {
                    // its copy committed with the record: the outbox's sender sends it now, on its own thread
                    deadLetters.wake();
                }
                commit.commit();
                LOG.debug("committed {}", key);
            }

            @Override
            public void onFailure(Exchange failed) {
                LOG.debug("{} not committed; the partition is read again from its offset", key);
            }
        });
    }
}
