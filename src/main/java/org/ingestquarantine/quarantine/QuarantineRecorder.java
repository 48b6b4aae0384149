package org.ingestquarantine.quarantine;

import java.util.Map;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.ingest.HeadRefusalException;
import org.ingestquarantine.ingest.SourceHead;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.PipelineVersions;
import org.ingestquarantine.pipeline.RecordKey;

/**
 * Turns a failed delivery into an evidence record, in two halves around the statement that commits it
 * (routes/quarantine.camel.yaml): {@link #evidence} before, {@link #committed} after. If anything fails the
 * exception propagates, the exchange stays failed, and the broker redelivers the message: a failing quarantine
 * write never acknowledges.
 */
public final class QuarantineRecorder {

    /**
     * Source name given to messages that could not be read and not attributed to a configured source; their
     * doc_id is the delivery key ({@link RecordKey#unreadable}).
     */
    public static final String INVALID_MESSAGES_SOURCE = RecordKey.INVALID_MESSAGES_SOURCE;

    private final QuarantineStore store;
    private final PipelineVersions versions;
    private final PipelineMetrics metrics;

    /**
     * @param store where records go
     * @param versions the versions of connector, parser, chunker and embedder in this process
     * @param metrics counts committed quarantine records
     */
    public QuarantineRecorder(QuarantineStore store, PipelineVersions versions, PipelineMetrics metrics) {
        this.store = store;
        this.versions = versions;
        this.metrics = metrics;
    }

    /**
     * First half of a quarantine: stores the payload and the stack trace in the object store and gives the
     * evidence record's row, the parameters of {@value QuarantineStore#RECORD_SQL}, which the route's
     * {@code sql:} endpoint then commits in one statement.
     *
     * @param exchange the failed delivery; its caught exception is in {@link Exchange#EXCEPTION_CAUGHT}, its
     *     classification in {@link PipelineKeys#FAILURE} (unclassified when missing)
     * @return the row: parameter name to value
     * @throws QuarantineWriteException when the payload store fails
     */
    public Map<String, Object> evidence(Exchange exchange) {
        Throwable failure = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (failure == null) {
            failure = new IllegalStateException("quarantined without a recorded exception");
        }
        Classification c = exchange.getProperty(PipelineKeys.FAILURE, Classification.class);
        if (c == null) {
            c = new Classification(ErrorClass.UNCLASSIFIED, Classification.UNKNOWN_REASON, failure);
        }
        ErrorClass errorClass = c.errorClass();
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        FetchedDocument fetched = exchange.getProperty(PipelineKeys.FETCHED, FetchedDocument.class);
        String deliveryKey = exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class);
        Integer deliveryCount = exchange.getProperty(PipelineKeys.DELIVERY_COUNT, Integer.class);

        RecordKey key = keyOf(exchange);
        FailureEvidence.Builder e = FailureEvidence.builder(key.source(), key.docId())
                .stage(exchange.getProperty(PipelineKeys.STAGE, "receive", String.class))
                .errorClass(errorClass)
                .failure(failure, c.cause())
                .reasonCode(c.reasonCode())
                .deliveryKey(deliveryKey)
                .deliveryCount(deliveryCount == null ? 1 : deliveryCount)
                .connectorVersion(versions.connectorFor(message == null ? null : message.uri()))
                .parserVersion(versions.parser())
                .chunkerVersion(versions.chunker())
                .embedderVersion(versions.embedder());
        if (message != null) {
            e.sourceVersion(message.sourceVersion()).cursorAtArrival(message.cursor()).ingestSeq(message.ingestSeq())
                    // set once the source's trust check admitted the URI (preflight); a refused one is not kept
                    .sourceUri(exchange.getProperty(PipelineKeys.SOURCE_URI, String.class));
        }
        if (message == null || RecordKey.isReservedSource(key.source())) {
            // a message that could not be read, or one refused over an indexed document: the body is still the
            // broker's, and it is the payload
            e.messageBody(messageBody(exchange));
        }
        headOf(failure).ifPresent(head -> e.sourceVersion(head.etag() != null ? head.etag() : message == null
                ? null : message.sourceVersion()).sourceUpdatedAt(head.updatedAt()));
        if (fetched != null) {
            e.sourceVersion(fetched.sourceVersion())
                    .sourceUpdatedAt(fetched.sourceUpdatedAt())
                    .contentType(fetched.contentType())
                    .payload(fetched.file());
        }
        Map<String, Object> row = store.evidenceRow(e.build());
        // the statement closes this delivery's attempt too, in the same transaction as the record
        row.put("attempt_id", exchange.getProperty(PipelineKeys.ATTEMPT_ID, Long.class));
        return row;
    }

    /**
     * Second half, once the record's statement has committed: a document missing at its source is closed as
     * deleted at source, and the quarantine is counted (never before the commit).
     *
     * @param exchange the delivery whose record committed
     * @throws QuarantineWriteException when the record cannot be closed
     */
    public void committed(Exchange exchange) {
        Classification c = exchange.getProperty(PipelineKeys.FAILURE, Classification.class);
        ErrorClass errorClass = c == null ? ErrorClass.UNCLASSIFIED : c.errorClass();
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        String source = keyOf(exchange).source();
        if (message != null && c != null && "not_found".equals(c.reasonCode())) {
            store.close(source, message.docId(), Disposition.DELETED_AT_SOURCE, "not_found", null);
        }
        metrics.quarantined(source, errorClass, c == null ? Classification.UNKNOWN_REASON : c.reasonCode(),
                versions.parser());
    }

    /**
     * @param exchange a delivery
     * @return the (source, doc_id) its record is keyed by: the message's own, unless the message was refused
     *     ({@link #refusedOverIndexed}) for a document the index holds; for that one, and for a message that could
     *     not be read, the key the reader named ({@link PipelineKeys#RECORD_KEY}), else
     *     {@value #INVALID_MESSAGES_SOURCE} and the delivery key
     */
    public static RecordKey keyOf(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        if (message != null && !refusedOverIndexed(exchange)) {
            return RecordKey.of(message);
        }
        if (message != null) {
            return RecordKey.unreadable(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class));
        }
        RecordKey named = exchange.getProperty(PipelineKeys.RECORD_KEY, RecordKey.class);
        return named != null ? named : RecordKey.unreadable(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class));
    }

    /**
     * A message whose URI its source refused before anything was read (permanent_input with no admitted URI:
     * {@code uri_not_allowed}, {@code invalid_uri}, {@code unsupported_uri}), for a document the index holds as
     * searchable: the message, not the document, failed. Its record goes to {@value #INVALID_MESSAGES_SOURCE} by
     * the delivery key, so the indexed document gets no open record that no drain could close (the record would
     * keep no URI to ask the source at), and a record the document already has is neither re-opened nor
     * overwritten by a message that names it.
     *
     * @param exchange a failed delivery whose message was read
     * @return whether its record goes to {@value #INVALID_MESSAGES_SOURCE}
     */
    static boolean refusedOverIndexed(Exchange exchange) {
        Classification c = exchange.getProperty(PipelineKeys.FAILURE, Classification.class);
        return c != null && c.errorClass() == ErrorClass.PERMANENT_INPUT
                && exchange.getProperty(PipelineKeys.INDEXED) != null
                && exchange.getProperty(PipelineKeys.SOURCE_URI) == null;
    }

    /**
     * @return the consumed body as bytes: unchanged when the consumer delivered bytes (Kafka, RabbitMQ non-text
     *     content types), else the text as UTF-8 (SQS bodies, RabbitMQ {@code text/*}); empty when there is none
     */
    static byte[] messageBody(Exchange exchange) {
        Object body = exchange.getIn().getBody();
        if (body instanceof byte[] bytes) {
            return bytes;
        }
        return body == null ? new byte[0] : body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** @return what the source's HEAD said, when the failure was decided from it */
    private static Optional<SourceHead> headOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HeadRefusalException h && h.head() != null) {
                return Optional.of(h.head());
            }
        }
        return Optional.empty();
    }
}
