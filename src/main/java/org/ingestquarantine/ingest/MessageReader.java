package org.ingestquarantine.ingest;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.InvalidIdentityException;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * Reads the message body into an {@link IngestMessage}; a body that is not one is permanent_input, and so is a
 * message naming a source this process does not configure ({@code unknown_source}): sources are configuration,
 * never producer input. Also names the {@link RecordKey} a failure of the delivery is recorded under: a message
 * whose source is valid and configured here (the check a good message's source passes at preflight) but whose
 * doc_id is invalid is kept under that source, doc_id named by the invalid doc_id's digest
 * ({@link RecordKey#invalidDocId}: the same name gives the same record on every delivery), so its coverage counts
 * it; any other unreadable message, and every message of an unconfigured or reserved source, goes to
 * {@value RecordKey#INVALID_MESSAGES_SOURCE}, named by its delivery key (never by its own doc_id, so it cannot name
 * another record), before any record, metric tag, log line or page row carries the producer's source name.
 */
public final class MessageReader {

    private final Predicate<String> configuredSource;

    /**
     * @param configuredSource whether a source name is configured in this process ({@link SourceAccess#isConfigured})
     */
    public MessageReader(Predicate<String> configuredSource) {
        this.configuredSource = Objects.requireNonNull(configuredSource, "configuredSource");
    }

    /**
     * Sets {@link PipelineKeys#MESSAGE} to the message read from the body and {@link PipelineKeys#RECORD_KEY} to
     * the key its record would have; on failure only the key, named from the invalid doc_id's digest or the
     * delivery key ({@link PipelineKeys#DELIVERY_KEY}, set before). A message of a source not configured here is
     * a failure too: the message is not set, so its record keeps the body as evidence, as an unreadable one's.
     *
     * @param exchange the consumed message: body bytes (Kafka, RabbitMQ), read as UTF-8, or text (SQS)
     * @throws PermanentInputException with reason {@code invalid_message}, or {@code unknown_source}
     */
    public void read(Exchange exchange) {
        String deliveryKey = exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class);
        try {
            IngestMessage message = configured(parse(exchange.getIn().getBody()));
            exchange.setProperty(PipelineKeys.MESSAGE, message);
            exchange.setProperty(PipelineKeys.RECORD_KEY, RecordKey.of(message));
        } catch (PermanentInputException e) {
            exchange.setProperty(PipelineKeys.RECORD_KEY, unreadable(e, deliveryKey));
            throw e;
        }
    }

    /**
     * @param body a message body, as {@link #read} takes it
     * @param deliveryKey the broker's identity of the message
     * @return the key its record has: the message's own, or the one {@link #read} names for an unreadable one
     */
    public RecordKey keyOf(Object body, String deliveryKey) {
        try {
            return RecordKey.of(configured(parse(body)));
        } catch (PermanentInputException e) {
            return unreadable(e, deliveryKey);
        }
    }

    /**
     * @return {@code message}, when its source is configured here
     * @throws PermanentInputException {@code unknown_source} otherwise (a reserved source never parses)
     */
    private IngestMessage configured(IngestMessage message) {
        if (!configuredSource.test(message.source())) {
            throw new PermanentInputException("unknown_source", "the message names a source this consumer does not"
                    + " configure; configure sources.<name>.file-roots, .http-allow or .s3-allow for it (the message,"
                    + " kept as this record's payload, names it)");
        }
        return message;
    }

    private RecordKey unreadable(PermanentInputException e, String deliveryKey) {
        if (e instanceof InvalidIdentityException invalid && invalid.messageSource() != null
                && !RecordKey.isReservedSource(invalid.messageSource()) && configuredSource.test(invalid.messageSource())) {
            return RecordKey.invalidDocId(invalid.messageSource(), invalid.docIdDigest());
        }
        return RecordKey.unreadable(deliveryKey);
    }

    private static IngestMessage parse(Object body) {
        if (body instanceof byte[] bytes) {
            return IngestMessage.parse(new String(bytes, StandardCharsets.UTF_8));
        }
        return IngestMessage.parse(body == null ? "" : body.toString());
    }
}
