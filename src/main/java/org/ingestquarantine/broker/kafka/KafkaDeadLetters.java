package org.ingestquarantine.broker.kafka;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.ingestquarantine.quarantine.DeadLetterCopy;
import org.ingestquarantine.quarantine.QuarantineStore;

/**
 * Copies a quarantined ingest record to the dead-letter topic ({@code <topic>.dlq}, default {@code ingest.dlq}),
 * exactly once per quarantine record.
 *
 * <p>The copy keeps the original key and value bytes unchanged (the consumer reads both as raw bytes, so a
 * record that is not UTF-8 or not JSON is copied as it came) and carries only these headers, UTF-8 strings
 * (read them with camel-kafka's {@code ToStringKafkaHeaderDeserializer}): {@value #ORIGIN_TOPIC},
 * {@value #ORIGIN_PARTITION}, {@value #ORIGIN_OFFSET}, {@value #ERROR_CLASS} (e.g. {@code ambiguous_parse}),
 * {@value #FINGERPRINT} (when the record has one) and {@value #DLQ_ID} (the quarantine record's id). The original
 * record's own headers are not copied.
 *
 * <p>The copy is {@linkplain #addTo added to the quarantine record's row}, so the record's own statement writes it
 * to the outbox in PostgreSQL ({@link KafkaDeadLetterOutbox}) in the record's transaction: a copy exists if and
 * only if its record committed, and a retried write of an already recorded delivery adds none. The consumer
 * thread does not wait for Kafka: once the exchange completes it {@linkplain #wake wakes} the outbox's sender,
 * which sends the copy (also after a Kafka outage). A process that dies between Kafka's acknowledgement of a
 * copy and the commit of its row's delete leaves it to be sent again: the dead-letter consumer drops the repeat by {@value #DLQ_ID} with {@value #ORIGIN_TOPIC},
 * {@value #ORIGIN_PARTITION} and {@value #ORIGIN_OFFSET} (a document quarantined again from a later message is
 * a new copy under the same {@value #DLQ_ID}).
 */
public final class KafkaDeadLetters {

    /** Header: topic the record was consumed from. */
    public static final String ORIGIN_TOPIC = "origin_topic";
    /** Header: its partition, decimal. */
    public static final String ORIGIN_PARTITION = "origin_partition";
    /** Header: its offset, decimal. */
    public static final String ORIGIN_OFFSET = "origin_offset";
    /** Header: the quarantine record's error class code, added by the record's statement. */
    public static final String ERROR_CLASS = DeadLetterCopy.ERROR_CLASS_HEADER;
    /** Header: the quarantine record's error fingerprint, added by the record's statement when it has one. */
    public static final String FINGERPRINT = DeadLetterCopy.FINGERPRINT_HEADER;
    /** Header: the quarantine record's dlq_id (ULID), added by the record's statement. */
    public static final String DLQ_ID = DeadLetterCopy.ID_HEADER;

    private final KafkaDeadLetterOutbox outbox;
    private final String topic;

    /**
     * @param outbox where copies wait for Kafka; woken once a copy committed
     * @param topic the dead-letter topic
     */
    KafkaDeadLetters(KafkaDeadLetterOutbox outbox, String topic) {
        this.outbox = outbox;
        this.topic = topic;
    }

    /** @return the dead-letter topic */
    public String topic() {
        return topic;
    }

    /**
     * Where a consumed record came from, taken when it arrives (the route may replace body and headers).
     *
     * @param topic origin topic
     * @param partition origin partition
     * @param offset origin offset
     * @param key the record's key bytes, may be null
     * @param value the record's value bytes, may be null
     */
    public record Origin(String topic, int partition, long offset, byte[] key, byte[] value) {

        /**
         * @param exchange a freshly consumed Kafka record (key and value read with a byte-array deserializer)
         * @return its origin
         */
        public static Origin of(Exchange exchange) {
            var in = exchange.getIn();
            return new Origin(in.getHeader(KafkaConstants.TOPIC, String.class),
                    in.getHeader(KafkaConstants.PARTITION, Integer.class), in.getHeader(KafkaConstants.OFFSET, Long.class),
                    bytes(in.getHeader(KafkaConstants.KEY)), bytes(in.getBody()));
        }

        /** Bytes as consumed; a String (a consumer configured with String deserializers) as UTF-8. */
        private static byte[] bytes(Object o) {
            return o == null ? null : o instanceof byte[] b ? b : o.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * Adds the dead-letter copy of a record being quarantined to its quarantine record's row, so the record's
     * statement writes it to the outbox in the record's transaction.
     *
     * @param origin the consumed record
     * @param row the quarantine record's row ({@link QuarantineStore#evidenceRow}), modified
     */
    void addTo(Origin origin, Map<String, Object> row) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(ORIGIN_TOPIC, origin.topic());
        headers.put(ORIGIN_PARTITION, Integer.toString(origin.partition()));
        headers.put(ORIGIN_OFFSET, Long.toString(origin.offset()));
        QuarantineStore.addDeadLetterCopy(row, new DeadLetterCopy(topic, origin.key(), origin.value(), headers));
    }

    /** Has the outbox's sender send what committed, now, on its own thread (no database or Kafka call here). */
    void wake() {
        outbox.wake();
    }
}
