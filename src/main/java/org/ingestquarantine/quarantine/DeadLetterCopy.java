package org.ingestquarantine.quarantine;

import java.util.Map;

/**
 * A broker's copy of a message being quarantined, for its dead-letter topic, written by the record's own
 * statement ({@value QuarantineStore#RECORD_SQL}) to the outbox {@code kafka_dlq_outbox}, so that it exists if
 * and only if the record committed. Only Kafka makes one (SQS and RabbitMQ dead-letter by their own redrive);
 * {@link QuarantineStore#addDeadLetterCopy} puts it in the record's row.
 *
 * @param topic the dead-letter topic
 * @param key the message's key bytes unchanged, may be null
 * @param value the message's value bytes unchanged, may be null
 * @param headers header name to value, UTF-8 text: where the message came from; the statement adds the record's
 *     own, {@value #ERROR_CLASS_HEADER}, {@value #FINGERPRINT_HEADER} (when the record has one) and {@value #ID_HEADER}
 */
public record DeadLetterCopy(String topic, byte[] key, byte[] value, Map<String, String> headers) {

    /** Header the record's statement adds: the record's error class code (e.g. {@code ambiguous_parse}). */
    public static final String ERROR_CLASS_HEADER = "error_class";
    /** Header the record's statement adds: the record's error fingerprint, absent when it has none. */
    public static final String FINGERPRINT_HEADER = "fingerprint";
    /** Header the record's statement adds: the record's dlq_id (ULID). */
    public static final String ID_HEADER = "dlq_id";

    public DeadLetterCopy {
        headers = Map.copyOf(headers);
    }
}
