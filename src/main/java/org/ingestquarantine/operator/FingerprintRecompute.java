package org.ingestquarantine.operator;

import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.Reasoned;
import org.ingestquarantine.parse.WorkerMain;
import org.ingestquarantine.quarantine.StoredTrace;

/**
 * The running algorithm's fingerprint ({@link ErrorFingerprint#VERSION}) of a record, from the evidence it keeps: the
 * root cause's type and frames from its stored stack trace ({@link StoredTrace}), and, for a {@link Reasoned} root
 * cause, the reason code on the record. The result is trusted only when the same evidence gives the fingerprint
 * the record holds under one of the algorithm's versions ({@link ErrorFingerprint#versionOf}): then the trace is
 * the one that fingerprint was computed from. Otherwise it says why not, and the record is to be left as it is.
 *
 * <p>What the evidence can say, and where it stops:
 * <ul>
 *   <li>a root cause rebuilt from a parser worker's answer ({@link org.ingestquarantine.failure.RemoteCause}, its
 *       outermost frame the worker's {@code WorkerMain.main}) is not {@link Reasoned} whatever type it names;</li>
 *   <li>a root cause of a type that no longer loads is not {@link Reasoned} when it is not ours, and unknown
 *       ({@value #ROOT_TYPE_UNKNOWN}) when it is;</li>
 *   <li>the record keeps the reason of the exception the classifier decided on, which is the root cause's own only
 *       when no exception outside it has a type rule or a SQLSTATE (an {@link SQLException}); otherwise the root's
 *       reason is not known ({@value #REASON_NOT_THE_ROOTS}).</li>
 * </ul>
 * Stateless and thread-safe.
 */
final class FingerprintRecompute {

    /** Why not: the stored trace is not a stack trace this can read (or its chain has a cycle). */
    static final String TRACE_UNREADABLE = "trace_unreadable";
    /** Why not: the root cause is one of ours whose type no longer loads, so whether it is {@link Reasoned} is unknown. */
    static final String ROOT_TYPE_UNKNOWN = "root_type_unknown";
    /** Why not: the root cause is {@link Reasoned} but the record's reason code is another exception's. */
    static final String REASON_NOT_THE_ROOTS = "reason_not_the_roots";
    /** Why not: the evidence gives the stored fingerprint under no version: it is not what it was computed from. */
    static final String NOT_REPRODUCED = "not_reproduced";

    private static final String OUR_PACKAGE = "org.ingestquarantine.";

    /**
     * What the evidence gave.
     *
     * @param fingerprint the running version's fingerprint, or null when it cannot be trusted
     * @param storedVersion the version that computed the stored fingerprint, or null with {@code fingerprint}
     * @param notRecomputable why not ({@link #TRACE_UNREADABLE}, ...), or null when recomputed
     */
    record Outcome(String fingerprint, Integer storedVersion, String notRecomputable) {

        static Outcome not(String why) {
            return new Outcome(null, null, why);
        }
    }

    private final ErrorClassifier classifier;

    /** @param classifier the classifier the pipeline records failures with ({@code delivery.ErrorTaxonomy}) */
    FingerprintRecompute(ErrorClassifier classifier) {
        this.classifier = Objects.requireNonNull(classifier, "classifier");
    }

    /**
     * @param storedFingerprint the record's fingerprint
     * @param reasonCode the record's reason code, or null
     * @param traceText the record's stored stack trace
     * @return the running version's fingerprint and the version of the stored one, or why it cannot be trusted
     */
    Outcome recompute(String storedFingerprint, String reasonCode, String traceText) {
        Optional<StoredTrace> read = StoredTrace.parse(traceText);
        if (read.isEmpty()) {
            return Outcome.not(TRACE_UNREADABLE);
        }
        List<StoredTrace.Cause> chain = read.get().chain();
        StoredTrace.Cause root = read.get().root();
        String reason = null;
        if (!fromAWorker(root)) {
            Optional<Class<?>> rootType = load(root.type());
            if (rootType.isEmpty() && root.type().startsWith(OUR_PACKAGE)) {
                return Outcome.not(ROOT_TYPE_UNKNOWN);
            }
            if (rootType.isPresent() && Reasoned.class.isAssignableFrom(rootType.get())) {
                if (reasonCode == null || !decidedOnTheRoot(chain, rootType.get())) {
                    return Outcome.not(REASON_NOT_THE_ROOTS);
                }
                reason = reasonCode;
            }
        }
        StackTraceElement[] frames = root.frames().toArray(StackTraceElement[]::new);
        OptionalInt stored = ErrorFingerprint.versionOf(storedFingerprint, root.type(), frames, reason);
        if (stored.isEmpty()) {
            return Outcome.not(NOT_REPRODUCED);
        }
        return new Outcome(ErrorFingerprint.of(root.type(), frames, reason), stored.getAsInt(), null);
    }

    /** @return whether the root cause's stack is a parser worker's: a RemoteCause, never {@link Reasoned} */
    private static boolean fromAWorker(StoredTrace.Cause root) {
        List<StackTraceElement> frames = root.frames();
        if (frames.isEmpty()) {
            return false;
        }
        StackTraceElement outermost = frames.get(frames.size() - 1);
        return WorkerMain.class.getName().equals(outermost.getClassName()) && "main".equals(outermost.getMethodName());
    }

    /**
     * @return whether the classifier decided on the root cause, so the record's reason is the root's own: no other
     *     exception of the chain has a SQLSTATE or a type rule, and the root has one (or is the whole chain)
     */
    private boolean decidedOnTheRoot(List<StoredTrace.Cause> chain, Class<?> rootType) {
        for (StoredTrace.Cause outer : chain.subList(0, chain.size() - 1)) {
            Optional<Class<?>> type = load(outer.type());
            if (type.isEmpty() || SQLException.class.isAssignableFrom(type.get()) || classifier.hasTypeRule(type.get())) {
                return false;
            }
        }
        return chain.size() == 1 || classifier.hasTypeRule(rootType);
    }

    private static Optional<Class<?>> load(String typeName) {
        try {
            Class<?> type = Class.forName(typeName, false, FingerprintRecompute.class.getClassLoader());
            return Throwable.class.isAssignableFrom(type) ? Optional.of(type) : Optional.empty();
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
    }
}
