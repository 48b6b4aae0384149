package org.ingestquarantine.broker.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.camel.Exchange;
import org.apache.camel.component.kafka.KafkaConstants;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
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
 * <p>The copy keeps the original key and value (the ingest message JSON: identifiers and a URI, never
 * document text) and carries only these headers, UTF-8 strings (read them with camel-kafka's
 * {@code ToStringKafkaHeaderDeserializer}): {@value #ORIGIN_TOPIC}, {@value #ORIGIN_PARTITION},
 * {@value #ORIGIN_OFFSET}, {@value #ERROR_CLASS} (e.g. {@code ambiguous_parse}), {@value #FINGERPRINT}
 * and {@value #DLQ_ID} (the quarantine record's id). The original record's own headers are not copied.
 *
 * <p>PostgreSQL holds the record; the topic is the broker's view of it. If the copy cannot be written
 * within {@code timeout}, one WARN line says so and the offset is still committed: the quarantine table
 * already has the record, and holding the partition would not bring the broker back sooner.
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

    private final Producer<String, String> producer;
    private final String topic;
    private final QuarantineStore store;
    private final Duration timeout;

    /**
     * @param producer a producer the caller closes
     * @param topic the dead-letter topic
     * @param store finds the committed record when the exchange no longer carries it
     * @param timeout how long one copy may take
     */
    public KafkaDeadLetters(Producer<String, String> producer, String topic, QuarantineStore store,
                            Duration timeout) {
        this.producer = producer;
        this.topic = topic;
        this.store = store;
        this.timeout = timeout;
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
     * @param key the record's key, may be null
     * @param value the record's value as text, may be null
     */
    public record Origin(String topic, int partition, long offset, String key, String value) {

        /**
         * @param exchange a freshly consumed Kafka record
         * @return its origin
         */
        public static Origin of(Exchange exchange) {
            var in = exchange.getIn();
            Object key = in.getHeader(KafkaConstants.KEY);
            return new Origin(in.getHeader(KafkaConstants.TOPIC, String.class),
                    in.getHeader(KafkaConstants.PARTITION, Integer.class), in.getHeader(KafkaConstants.OFFSET, Long.class),
                    key == null ? null : key.toString(), in.getBody(String.class));
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
        RecordHeaders headers = new RecordHeaders();
        header(headers, ORIGIN_TOPIC, origin.topic());
        header(headers, ORIGIN_PARTITION, Integer.toString(origin.partition()));
        header(headers, ORIGIN_OFFSET, Long.toString(origin.offset()));
        header(headers, ERROR_CLASS, r.errorClass().code());
        header(headers, FINGERPRINT, r.errorFingerprint());
        header(headers, DLQ_ID, r.dlqId());
        try {
            producer.send(new ProducerRecord<>(topic, null, origin.key(), origin.value(), headers))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("interrupted while copying quarantined record {} to {}; the quarantine table has it", r.dlqId(), topic);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("could not copy quarantined record {} to {} within {} ms ({}); the quarantine table has it,"
                    + " check that the topic exists and the broker answers", r.dlqId(), topic, timeout.toMillis(),
                    e.getClass().getSimpleName());
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

    private static void header(RecordHeaders headers, String key, String value) {
        if (value != null) {
            headers.add(key, value.getBytes(StandardCharsets.UTF_8));
        }
    }
}
