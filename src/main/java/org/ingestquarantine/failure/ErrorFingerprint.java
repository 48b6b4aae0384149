package org.ingestquarantine.failure;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * A short, stable name for "where and how it failed", shared by every document that fails the same way.
 *
 * <p>The fingerprint is the first {@value #LENGTH} hex characters of the SHA-256 of the ROOT cause's type
 * name (for a {@link RemoteCause}, the original type {@link RemoteCause#remoteType()}) and its top
 * {@value #FRAMES} stack frames written as {@code class.method}, and, when the root cause is {@link Reasoned}, its
 * reason code: one check that refuses a document for two reasons (the HEAD's {@code empty} and {@code too_large})
 * is two cohorts, not one. Line numbers and messages are left out, so the fingerprint survives unrelated edits and
 * never depends on document content (a reason code is a stable code, never text).
 *
 * <p>Frames of the JVM's call plumbing do not count ({@link #isPlumbing(String)}): reflection accessors change
 * name within one JVM ({@code NativeMethodAccessorImpl} becomes {@code GeneratedMethodAccessor8} after the
 * JVM's inflation threshold, 15 calls by default) and lambda and proxy classes are named per run, so counting
 * them split one failure of a bean method into several cohorts.
 *
 * <p>The algorithm has a version, {@link #VERSION}, written on every record beside the fingerprint (column
 * {@code fingerprint_version}, schema V28); a record keeps the fingerprint it was written with until it fails again
 * or {@code fingerprints remap} recomputes it. Its history:
 * <ol>
 *   <li>the root cause's type and top {@value #FRAMES} frames. Until 2026-12-01 the JVM's call plumbing counted
 *       as frames too (a bean method's failure could then have two fingerprints); that change came without a
 *       version, so version 1 covers both ways;</li>
 *   <li>with schema V22's release (2026-12-02): a {@link Reasoned} root cause's reason code is part of the key, so
 *       version 1's cohort of one check refusing for two reasons became two. A root cause that is not
 *       {@link Reasoned} (a worker's {@link RemoteCause}, a library's exception) has the same fingerprint in both
 *       versions.</li>
 * </ol>
 * Records written before V28 carry no version (null, "before versioning"): whether version 1 or 2 wrote one cannot
 * be told from the database (V22 itself changed no fingerprint). {@link #versionOf} tells it from the evidence.
 */
public final class ErrorFingerprint {

    /** Hex characters in a fingerprint. */
    public static final int LENGTH = 16;
    /** Stack frames of the root cause that count. */
    public static final int FRAMES = 3;
    /** The version of the algorithm {@link #of} computes; its history is in the class comment. */
    public static final int VERSION = 2;

    private ErrorFingerprint() {
    }

    /**
     * @param failure any throwable; its cause chain is followed to the root (cycles are cut)
     * @return {@value #LENGTH} lower-case hex characters, by version {@value #VERSION}
     */
    public static String of(Throwable failure) {
        Throwable root = rootCause(failure);
        String reason = root instanceof Reasoned reasoned ? reasoned.reasonCode() : null;
        return of(typeName(root), root.getStackTrace(), reason);
    }

    /**
     * The fingerprint of a failure known from its evidence rather than as an exception (a record's stored stack
     * trace), by version {@value #VERSION}.
     *
     * @param rootType the root cause's type name, as {@link #typeName} gives it
     * @param frames the root cause's stack frames, innermost first
     * @param reasonCode the root cause's own reason code when it is {@link Reasoned}, else null
     * @return {@value #LENGTH} lower-case hex characters; {@link #of(Throwable)} of that failure
     */
    public static String of(String rootType, StackTraceElement[] frames, String reasonCode) {
        return hash(key(rootType, frames, false) + reasonPart(reasonCode));
    }

    /**
     * Which version of the algorithm computed a fingerprint, from the failure's evidence.
     *
     * @param fingerprint a stored fingerprint
     * @param rootType as for {@link #of(String, StackTraceElement[], String)}
     * @param frames as for {@link #of(String, StackTraceElement[], String)}
     * @param reasonCode as for {@link #of(String, StackTraceElement[], String)}
     * @return {@value #VERSION} when it is this version's fingerprint of the evidence (also for a root cause that
     *     is not {@link Reasoned}, whose fingerprint version 2 left as it was), 1 when version 1's (either way,
     *     plumbing frames counted or not), empty when no version gives it: the evidence is not the failure that
     *     fingerprint was computed from
     */
    public static OptionalInt versionOf(String fingerprint, String rootType, StackTraceElement[] frames,
                                                  String reasonCode) {
        if (of(rootType, frames, reasonCode).equals(fingerprint)) {
            return OptionalInt.of(VERSION);
        }
        if (hash(key(rootType, frames, false)).equals(fingerprint) || hash(key(rootType, frames, true)).equals(fingerprint)) {
            return OptionalInt.of(1);
        }
        return OptionalInt.empty();
    }

    /** @return the type and the top frames, one a line; the plumbing counted only as version 1 did until 2026-12-01 */
    private static String key(String rootType, StackTraceElement[] frames, boolean plumbingCounts) {
        StringBuilder key = new StringBuilder(rootType);
        int counted = 0;
        for (StackTraceElement frame : frames) {
            if (counted == FRAMES) {
                break;
            }
            if (plumbingCounts || !isPlumbing(frame.getClassName())) {
                key.append('\n').append(frame.getClassName()).append('.').append(frame.getMethodName());
                counted++;
            }
        }
        return key.toString();
    }

    private static String reasonPart(String reasonCode) {
        return reasonCode == null ? "" : "\nreason:" + reasonCode;
    }

    private static String hash(String key) {
        return HexFormat.of().formatHex(sha256(key)).substring(0, LENGTH);
    }

    /**
     * @param className a stack frame's class name
     * @return whether the frame is the JVM's call plumbing, whose names are not stable: reflection
     *     ({@code jdk.internal.reflect.}, {@code sun.reflect.}, {@code java.lang.reflect.}), method handles
     *     ({@code java.lang.invoke.}), dynamic proxies ({@code jdk.proxy}, {@code com.sun.proxy.}) and lambdas
     *     ({@code $$Lambda})
     */
    static boolean isPlumbing(String className) {
        return className.startsWith("jdk.internal.reflect.") || className.startsWith("sun.reflect.")
                || className.startsWith("java.lang.reflect.") || className.startsWith("java.lang.invoke.")
                || className.startsWith("jdk.proxy") || className.startsWith("com.sun.proxy.")
                || className.contains("$$Lambda");
    }

    /**
     * @param failure any throwable
     * @return the innermost cause, or {@code failure} itself if it has none
     */
    public static Throwable rootCause(Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        Throwable root = failure;
        while (root.getCause() != null && seen.put(root, Boolean.TRUE) == null) {
            root = root.getCause();
        }
        return root;
    }

    /**
     * @param failure any throwable
     * @return its fully-qualified type name, or the original type's name for a {@link RemoteCause}
     */
    public static String typeName(Throwable failure) {
        return failure instanceof RemoteCause remote ? remote.remoteType() : failure.getClass().getName();
    }

    private static byte[] sha256(String text) {
        return DigestUtils.sha256(text.getBytes(StandardCharsets.UTF_8));
    }
}
