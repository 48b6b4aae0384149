package org.ingestquarantine.quarantine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Instant;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import org.ingestquarantine.db.SqlFailure;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.Reasoned;
import org.ingestquarantine.failure.RemoteCause;
import org.ingestquarantine.pipeline.LogSafe;

/**
 * What the pipeline knows when a document fails: the input to {@link QuarantineStore#record(FailureEvidence)}.
 *
 * <p>Required: {@code source}, {@code docId}, {@code errorClass}. Everything else is optional and
 * {@code null} when unknown ({@code deliveryCount} 0 when unknown). Build with {@link #builder(String, String)};
 * {@link Builder#failure(Throwable, Throwable)} fills the error fields from an exception as a quarantine records
 * them ({@link Builder#failure(Throwable)} from its root cause alone).
 *
 * <p>{@link #toString()} leaves out the error message and stack trace: they may quote document text.
 */
public final class FailureEvidence {

    private final String source;
    private final String docId;
    private final String sourceUri;
    private final String sourceVersion;
    private final Instant sourceUpdatedAt;
    private final String cursorAtArrival;
    private final Long ingestSeq;
    private final String connectorVersion;
    private final String parserVersion;
    private final String chunkerVersion;
    private final String embedderVersion;
    private final String contentType;
    private final String stage;
    private final Path payload;
    private final byte[] messageBody;
    private final ErrorClass errorClass;
    private final String errorType;
    private final String errorMessage;
    private final String errorFingerprint;
    private final Integer fingerprintVersion;
    private final String stackTrace;
    private final String reasonCode;
    private final int deliveryCount;
    private final String deliveryKey;

    private FailureEvidence(Builder b) {
        this.source = requireText(b.source, "source");
        this.docId = requireText(b.docId, "docId");
        this.errorClass = Objects.requireNonNull(b.errorClass, "errorClass is required");
        if (b.deliveryCount < 0) {
            throw new IllegalArgumentException("deliveryCount must be 0 (unknown) or positive, was " + b.deliveryCount);
        }
        this.sourceUri = b.sourceUri;
        this.sourceVersion = b.sourceVersion;
        this.sourceUpdatedAt = b.sourceUpdatedAt;
        this.cursorAtArrival = b.cursorAtArrival;
        this.ingestSeq = b.ingestSeq;
        this.connectorVersion = b.connectorVersion;
        this.parserVersion = b.parserVersion;
        this.chunkerVersion = b.chunkerVersion;
        this.embedderVersion = b.embedderVersion;
        this.contentType = b.contentType;
        this.stage = b.stage;
        this.payload = b.payload;
        this.messageBody = b.messageBody;
        this.errorType = b.errorType;
        this.errorMessage = b.errorMessage;
        this.errorFingerprint = b.errorFingerprint;
        this.fingerprintVersion = b.fingerprintVersion;
        this.stackTrace = b.stackTrace;
        this.reasonCode = b.reasonCode;
        this.deliveryCount = b.deliveryCount;
        this.deliveryKey = b.deliveryKey;
    }

    private static String requireText(String value, String name) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }

    /**
     * @param source the connector's name, e.g. {@code folder}
     * @param docId the document's id within the source
     * @return a builder; set at least {@link Builder#errorClass(ErrorClass)}
     */
    public static Builder builder(String source, String docId) {
        return new Builder(source, docId);
    }

    /** @return connector name; never null */
    public String source() { return source; }
    /** @return document id within the source; never null */
    public String docId() { return docId; }
    /**
     * @return the URI the document was (to be) fetched from, as its message named it or the drain resolved it,
     *     once the source's trust check admitted it; null when none was admitted (refused, unreadable message)
     */
    public String sourceUri() { return sourceUri; }
    /** @return etag or content sha256, or null */
    public String sourceVersion() { return sourceVersion; }
    /** @return when the source last changed the document, or null */
    public Instant sourceUpdatedAt() { return sourceUpdatedAt; }
    /** @return the source cursor when the message arrived, or null */
    public String cursorAtArrival() { return cursorAtArrival; }
    /** @return the message's ingest sequence number, or null */
    public Long ingestSeq() { return ingestSeq; }
    /** @return connector version, or null */
    public String connectorVersion() { return connectorVersion; }
    /** @return parser version, or null */
    public String parserVersion() { return parserVersion; }
    /** @return chunker version, or null */
    public String chunkerVersion() { return chunkerVersion; }
    /** @return embedder version, or null */
    public String embedderVersion() { return embedderVersion; }
    /** @return MIME type as detected or declared, or null */
    public String contentType() { return contentType; }
    /** @return the pipeline stage that failed ({@code preflight}, {@code fetch}, {@code parse}, ...), or null */
    public String stage() { return stage; }
    /** @return the fetched bytes on disk, or null if never fetched */
    public Path payload() { return payload; }
    /**
     * @return the broker message's own bytes, unchanged, when the message could not be read as an ingest message
     *     (its payload then; ignored when {@link #payload()} is set), or null
     */
    public byte[] messageBody() { return messageBody; }
    /** @return the failure class; never null */
    public ErrorClass errorClass() { return errorClass; }
    /** @return fully-qualified type of the root exception, or null */
    public String errorType() { return errorType; }
    /** @return the exception message, or null; may quote document text: never log it */
    public String errorMessage() { return errorMessage; }
    /** @return {@link ErrorFingerprint} of the failure, or null */
    public String errorFingerprint() { return errorFingerprint; }
    /**
     * @return the version of the algorithm that computed {@link #errorFingerprint()} ({@link ErrorFingerprint#VERSION}
     *     when {@link Builder#failure} did), or null when the fingerprint was given as it is
     */
    public Integer fingerprintVersion() { return fingerprintVersion; }
    /** @return the full stack trace text, or null; stored in the payload store, never in the row */
    public String stackTrace() { return stackTrace; }
    /** @return a machine reason such as {@code not_pdf}, or null */
    public String reasonCode() { return reasonCode; }
    /** @return the broker's delivery count for this delivery (1 = first), 0 if unknown */
    public int deliveryCount() { return deliveryCount; }
    /** @return the broker message identity, or null; with {@link #deliveryCount()} it makes recording idempotent */
    public String deliveryKey() { return deliveryKey; }

    @Override
    public String toString() {
        return "FailureEvidence[source=" + source + ", docId=" + docId + ", stage=" + stage
                + ", errorClass=" + errorClass.code() + ", errorType=" + errorType + ", reasonCode=" + reasonCode
                + ", fingerprint=" + errorFingerprint + ", deliveryKey=" + deliveryKey
                + ", deliveryCount=" + deliveryCount + "]";
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

    /** Builder of {@link FailureEvidence}; every setter returns {@code this}. Not thread-safe. */
    public static final class Builder {
        private final String source;
        private final String docId;
        private String sourceUri;
        private String sourceVersion;
        private Instant sourceUpdatedAt;
        private String cursorAtArrival;
        private Long ingestSeq;
        private String connectorVersion;
        private String parserVersion;
        private String chunkerVersion;
        private String embedderVersion;
        private String contentType;
        private String stage;
        private Path payload;
        private byte[] messageBody;
        private ErrorClass errorClass;
        private String errorType;
        private String errorMessage;
        private String errorFingerprint;
        private Integer fingerprintVersion;
        private String stackTrace;
        private String reasonCode;
        private int deliveryCount;
        private String deliveryKey;

        private Builder(String source, String docId) {
            this.source = source;
            this.docId = docId;
        }

        /** @param v a URI the source's trust check admitted ({@code ingest.SourceAccess}); never a refused one */
        public Builder sourceUri(String v) { this.sourceUri = v; return this; }
        public Builder sourceVersion(String v) { this.sourceVersion = v; return this; }
        public Builder sourceUpdatedAt(Instant v) { this.sourceUpdatedAt = v; return this; }
        public Builder cursorAtArrival(String v) { this.cursorAtArrival = v; return this; }
        public Builder ingestSeq(Long v) { this.ingestSeq = v; return this; }
        public Builder connectorVersion(String v) { this.connectorVersion = v; return this; }
        public Builder parserVersion(String v) { this.parserVersion = v; return this; }
        public Builder chunkerVersion(String v) { this.chunkerVersion = v; return this; }
        public Builder embedderVersion(String v) { this.embedderVersion = v; return this; }
        public Builder contentType(String v) { this.contentType = v; return this; }
        public Builder stage(String v) { this.stage = v; return this; }
        public Builder payload(Path v) { this.payload = v; return this; }
        public Builder messageBody(byte[] v) { this.messageBody = v; return this; }
        public Builder errorClass(ErrorClass v) { this.errorClass = v; return this; }
        public Builder errorType(String v) { this.errorType = v; return this; }
        public Builder errorMessage(String v) { this.errorMessage = v; return this; }
        /** @param v a fingerprint given as it is: its algorithm version is unknown (null) unless also set */
        public Builder errorFingerprint(String v) { this.errorFingerprint = v; this.fingerprintVersion = null; return this; }
        /** @param v the version of the algorithm that computed the fingerprint ({@link ErrorFingerprint#VERSION}) */
        public Builder fingerprintVersion(Integer v) { this.fingerprintVersion = v; return this; }
        public Builder stackTrace(String v) { this.stackTrace = v; return this; }
        public Builder reasonCode(String v) { this.reasonCode = v; return this; }
        public Builder deliveryCount(int v) { this.deliveryCount = v; return this; }
        public Builder deliveryKey(String v) { this.deliveryKey = v; return this; }

        /**
         * Fills the error fields from an exception: {@code errorType} and {@code errorMessage} of the root
         * cause ({@link ErrorFingerprint#typeName}), {@code errorFingerprint}, the full {@code stackTrace},
         * and {@code reasonCode} from the outermost {@link Reasoned} in the cause chain, if any. Does not set
         * {@code errorClass}: classifying is the classifier's job.
         *
         * @param failure the exception that failed the document
         * @return this
         */
        public Builder failure(Throwable failure) {
            this.errorMessage = typeFingerprintAndTrace(failure).getMessage();
            Map<Throwable, Boolean> seen = new IdentityHashMap<>();
            for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
                if (t instanceof Reasoned reasoned) {
                    this.reasonCode = reasoned.reasonCode();
                    break;
                }
            }
            return this;
        }

        /**
         * Fills the error fields as a quarantine records them, the ingest route ({@link QuarantineRecorder}) and
         * the operator's drain alike: {@code errorType} the root cause's ({@link ErrorFingerprint#typeName}, so a
         * worker's {@link RemoteCause} names the worker's exception), {@code errorMessage} the root cause's type
         * and message first, then the classified wrapper's message when it adds something (see
         * {@link FailureEvidence#rootFirst}), {@code errorFingerprint} with its {@code fingerprintVersion} and the full
     * {@code stackTrace}. Sets
         * neither {@code errorClass} nor {@code reasonCode}: they are the classification's.
         *
         * @param failure the exception that failed the document
         * @param classified the exception in {@code failure}'s cause chain the classifier matched (its
         *     {@code Classification.cause()}), or {@code failure} itself; not null
         * @return this
         */
        public Builder failure(Throwable failure, Throwable classified) {
            Objects.requireNonNull(classified, "classified");
            this.errorMessage = rootFirst(typeFingerprintAndTrace(failure), classified);
            return this;
        }

        /**
         * Sets errorType (the root cause's), errorFingerprint, fingerprintVersion and stackTrace from the failure;
         * returns the root.
         */
        private Throwable typeFingerprintAndTrace(Throwable failure) {
            Throwable root = ErrorFingerprint.rootCause(failure);
            this.errorType = ErrorFingerprint.typeName(root);
            this.errorFingerprint = ErrorFingerprint.of(failure);
            this.fingerprintVersion = ErrorFingerprint.VERSION;
            StringWriter trace = new StringWriter();
            failure.printStackTrace(new PrintWriter(trace));
            this.stackTrace = trace.toString();
            return root;
        }

        /**
         * @return the evidence
         * @throws IllegalArgumentException if source or docId is blank, or deliveryCount is negative
         * @throws NullPointerException if errorClass is not set
         */
        public FailureEvidence build() {
            return new FailureEvidence(this);
        }
    }
}
