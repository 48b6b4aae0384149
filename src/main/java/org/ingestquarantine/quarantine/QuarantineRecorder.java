package org.ingestquarantine.quarantine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.SQLException;
import java.util.Map;
import java.util.Optional;
import org.apache.camel.Exchange;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.RemoteCause;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.ingest.HeadRefusalException;
import org.ingestquarantine.ingest.SourceHead;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.LogSafe;
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
        Throwable root = ErrorFingerprint.rootCause(failure);

        RecordKey key = keyOf(exchange);
        FailureEvidence.Builder e = FailureEvidence.builder(key.source(), key.docId())
                .stage(exchange.getProperty(PipelineKeys.STAGE, "receive", String.class))
                .errorClass(errorClass)
                .errorType(ErrorFingerprint.typeName(root))
                .errorMessage(rootFirst(root, c.cause()))
                .errorFingerprint(ErrorFingerprint.of(failure))
                .stackTrace(stackTrace(failure))
                .reasonCode(c.reasonCode())
                .deliveryKey(deliveryKey)
                .deliveryCount(deliveryCount == null ? 1 : deliveryCount)
                .connectorVersion(versions.connectorFor(message == null ? null : message.uri()))
                .parserVersion(versions.parser())
                .chunkerVersion(versions.chunker())
                .embedderVersion(versions.embedder());
        if (message != null) {
            e.sourceVersion(message.sourceVersion()).cursorAtArrival(message.cursor()).ingestSeq(message.ingestSeq());
        } else {
            // a message that could not be read: the body is still the broker's, and it is the payload
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
     * @return the (source, doc_id) its record is keyed by: the message's own; for a message that could not be read,
     *     the key the reader named ({@link PipelineKeys#RECORD_KEY}), else {@value #INVALID_MESSAGES_SOURCE} and
     *     the delivery key
     */
    public static RecordKey keyOf(Exchange exchange) {
        IngestMessage message = exchange.getProperty(PipelineKeys.MESSAGE, IngestMessage.class);
        if (message != null) {
            return RecordKey.of(message);
        }
        RecordKey named = exchange.getProperty(PipelineKeys.RECORD_KEY, RecordKey.class);
        return named != null ? named : RecordKey.unreadable(exchange.getProperty(PipelineKeys.DELIVERY_KEY, String.class));
    }

    /**
     * @return the root cause's type and message first (a foreign message, a parser's or driver's, bounded and
     *     escaped; our own exceptions' messages are built safe), then, as {@code " (in Wrapper: message)"}, the
     *     classified wrapper's own message when it is another exception and its message adds something: left
     *     out when it is null, or holds the root's message (equal to it, or e.g. {@code "Type: message"})
     */
    static String rootFirst(Throwable root, Throwable classified) {
        String type = ErrorFingerprint.typeName(root);
        String text = type.substring(type.lastIndexOf('.') + 1) + ": " + (root instanceof SQLException sql
                ? SqlFailure.describe(sql) : safeMessage(root));
        if (root == classified || addsNothing(classified.getMessage(), root)) {
            return text;
        }
        return text + " (in " + classified.getClass().getSimpleName() + ": " + safeMessage(classified) + ")";
    }

    /** @return whether a wrapper's message only repeats its root cause: null, or holding the root's message */
    private static boolean addsNothing(String wrapperMessage, Throwable root) {
        if (wrapperMessage == null) {
            return true;
        }
        String rootMessage = root.getMessage();
        return rootMessage != null && !rootMessage.isBlank() ? wrapperMessage.contains(rootMessage)
                : wrapperMessage.isBlank() || wrapperMessage.equals(root.toString());
    }

    /** @return the message as it is for our own exceptions (built safe), bounded and escaped for others */
    private static String safeMessage(Throwable t) {
        boolean ours = t.getClass().getName().startsWith("org.ingestquarantine.") && !(t instanceof RemoteCause);
        return ours ? t.getMessage() : LogSafe.identity(t.getMessage());
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

    private static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
