package org.ingestquarantine.broker.kafka;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.quarantine.QuarantineStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a quarantined ingest record to the dead-letter topic ({@code <topic>.dlq}, default
 * {@code ingest.dlq}), after its quarantine record committed and before its offset is committed.
 *
 * <p>The copy keeps the original key and value bytes unchanged (the consumer reads both as raw bytes, so a
 * record that is not UTF-8 or not JSON is copied as it came) and carries only these headers, UTF-8 strings
 * (read them with camel-kafka's {@code ToStringKafkaHeaderDeserializer}): {@value #ORIGIN_TOPIC},
 * {@value #ORIGIN_PARTITION}, {@value #ORIGIN_OFFSET}, {@value #ERROR_CLASS} (e.g. {@code ambiguous_parse}),
 * {@value #FINGERPRINT} and {@value #DLQ_ID} (the quarantine record's id). The original record's own headers
 * are not copied.
 *
 * <p>The consumer thread does not wait for Kafka: the copy is written to the outbox in PostgreSQL
 * ({@link KafkaDeadLetterOutbox}) and sent from there by a thread of its own, also after a Kafka outage. Only
 * if that write fails (PostgreSQL went away right after the record committed) is the copy sent directly,
 * without waiting; a failure of that send is logged and the quarantine table still has the record.
 */
public final class KafkaDeadLetters {

    /** Header: topic the record was consumed from. */
    public static final String ORIGIN_TOPIC = "origin_topic";
    /** Header: its partition, decimal. */
    public static final String ORIGIN_PARTITION = "origin_partition";
    /** Header: its offset, decimal. */
    public static final String ORIGIN_OFFSET = "origin_offset";
    /** Header: the quarantine record's error class code. */
    public static final String ERROR_CLASS = "error_class";
    /** Header: the quarantine record's error fingerprint. */
    public static final String FINGERPRINT = "fingerprint";
    /** Header: the quarantine record's dlq_id (ULID). */
    public static final String DLQ_ID = "dlq_id";

    private static final Logger LOG = LoggerFactory.getLogger(KafkaDeadLetters.class);

    private final KafkaDeadLetterOutbox outbox;
    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final QuarantineStore store;

    /**
     * @param outbox where copies wait for Kafka
     * @param producer for the direct send when the outbox cannot be written; the caller closes it
     * @param topic the dead-letter topic
     * @param store finds the committed record when the exchange no longer carries it
     */
    KafkaDeadLetters(KafkaDeadLetterOutbox outbox, Producer<byte[], byte[]> producer, String topic,
                     QuarantineStore store) {
        this.outbox = outbox;
        this.producer = producer;
        this.topic = topic;
        this.store = store;
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
     * @param origin the consumed record
     * @param exchange its completed exchange, quarantined
     */
    void send(Origin origin, Exchange exchange) {
        Optional<QuarantineRecord> record = recordOf(exchange);
        if (record.isEmpty()) {
            LOG.warn("no quarantine record found for {}/{}/{}; nothing copied to {}", origin.topic(), origin.partition(),
                    origin.offset(), topic);
            return;
        }
        QuarantineRecord r = record.get();
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(ORIGIN_TOPIC, origin.topic());
        headers.put(ORIGIN_PARTITION, Integer.toString(origin.partition()));
        headers.put(ORIGIN_OFFSET, Long.toString(origin.offset()));
        headers.put(ERROR_CLASS, r.errorClass().code());
        if (r.errorFingerprint() != null) {
            headers.put(FINGERPRINT, r.errorFingerprint());
        }
        headers.put(DLQ_ID, r.dlqId());
        KafkaDeadLetterOutbox.Copy copy = new KafkaDeadLetterOutbox.Copy(topic, origin.key(), origin.value(), headers);
        try {
            outbox.add(copy);
        } catch (SQLException e) {
            LOG.warn("dead-letter copy of {} not written to the outbox ({}); sending it directly", r.dlqId(),
                    SqlFailure.describe(e));
            RecordHeaders h = new RecordHeaders();
            headers.forEach((k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
            producer.send(new ProducerRecord<>(topic, null, copy.key(), copy.value(), h), (meta, failed) -> {
                if (failed != null) {
                    LOG.warn("could not copy quarantined record {} to {} ({}); the quarantine table has it", r.dlqId(),
                            topic, failed.getClass().getSimpleName());
                }
            });
        }
    }

    private Optional<QuarantineRecord> recordOf(Exchange exchange) {
        if (exchange.getMessage().getBody() instanceof QuarantineRecord r) {
            return Optional.of(r);
        }
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        String source = message == null ? QuarantineRecorder.INVALID_MESSAGES_SOURCE : message.source();
        String docId = message == null ? exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class) : message.docId();
        return store.find(source, docId);
    }
}
