package org.ingestquarantine.quarantine;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.apache.camel.Exchange;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.ingest.FetchedDocument;
import org.ingestquarantine.metrics.PipelineMetrics;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.PipelineKeys;
import org.ingestquarantine.pipeline.PipelineVersions;

/**
 * Turns a failed delivery into an evidence record and commits it. If the write fails the exception
 * propagates, the exchange stays failed, and the broker redelivers the message: a failing quarantine
 * write never acknowledges.
 */
public final class QuarantineRecorder {

    /** Source name given to messages that could not be read at all; their doc_id is the delivery key. */
    public static final String INVALID_MESSAGES_SOURCE = "_invalid_messages";

    private final QuarantineStore store;
    private final PipelineVersions versions;
    private final PipelineMetrics metrics;

    /**
     * @param store where records go
     * @param versions the versions of connector, parser, chunker and embedder in this process
     * @param metrics counts quarantined documents
     */
    public QuarantineRecorder(QuarantineStore store, PipelineVersions versions, PipelineMetrics metrics) {
        this.store = store;
        this.versions = versions;
        this.metrics = metrics;
    }

    /**
     * @param exchange the failed delivery; its caught exception is in {@link Exchange#EXCEPTION_CAUGHT}, its
     *     classification in {@link PipelineKeys#FAILURE} (unclassified when missing)
     * @return the committed record
     * @throws QuarantineWriteException when the record cannot be committed
     */
    public QuarantineRecord record(Exchange exchange) {
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

        FailureEvidence.Builder e = FailureEvidence.builder(
                        message == null ? INVALID_MESSAGES_SOURCE : message.source(),
                        message == null ? deliveryKey : message.docId())
                .stage(exchange.getProperty(PipelineKeys.STAGE, "receive", String.class))
                .errorClass(errorClass)
                .errorType(c.cause().getClass().getName())
                .errorMessage(c.cause().getMessage())
                .errorFingerprint(ErrorFingerprint.of(failure))
                .stackTrace(stackTrace(failure))
                .reasonCode(c.reasonCode())
                .deliveryKey(deliveryKey)
                .deliveryCount(deliveryCount == null ? 1 : deliveryCount)
                .connectorVersion(versions.connector())
                .parserVersion(versions.parser())
                .chunkerVersion(versions.chunker())
                .embedderVersion(versions.embedder());
        if (message != null) {
            e.sourceVersion(message.sourceVersion()).cursorAtArrival(message.cursor()).ingestSeq(message.ingestSeq());
        }
        if (fetched != null) {
            e.sourceVersion(fetched.sourceVersion())
                    .sourceUpdatedAt(fetched.sourceUpdatedAt())
                    .contentType(fetched.contentType())
                    .payload(fetched.file());
        }
        QuarantineRecord record = store.record(e.build());
        if ("not_found".equals(c.reasonCode())) {
            store.close(record.source(), record.docId(), Disposition.DELETED_AT_SOURCE, "not_found", null);
        }
        metrics.quarantined(record.source(), errorClass, ErrorFingerprint.typeName(root), versions.parser());
        return record;
    }

    private static String stackTrace(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
