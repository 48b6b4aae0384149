package org.ingestquarantine.failure;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.Map;

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
 * <p>The reason became part of the key in schema V22's release: a record keeps the fingerprint it was written with,
 * so an open record of such a failure stays in its old cohort until it fails again (then it moves to the new one);
 * failures of a root cause that is not {@link Reasoned} (a worker's {@link RemoteCause}, a library's exception)
 * keep their fingerprints.
 *
 * <p>Frames of the JVM's call plumbing do not count ({@link #isPlumbing(String)}): reflection accessors change
 * name within one JVM ({@code NativeMethodAccessorImpl} becomes {@code GeneratedMethodAccessor8} after the
 * JVM's inflation threshold, 15 calls by default) and lambda and proxy classes are named per run, so counting
 * them split one failure of a bean method into several cohorts.
 */
public final class ErrorFingerprint {

    /** Hex characters in a fingerprint. */
    public static final int LENGTH = 16;
    /** Stack frames of the root cause that count. */
    public static final int FRAMES = 3;

    private ErrorFingerprint() {
    }

    /**
     * @param failure any throwable; its cause chain is followed to the root (cycles are cut)
     * @return {@value #LENGTH} lower-case hex characters
     */
    public static String of(Throwable failure) {
        Throwable root = rootCause(failure);
        StringBuilder key = new StringBuilder(typeName(root));
        int counted = 0;
        for (StackTraceElement frame : root.getStackTrace()) {
            if (counted == FRAMES) {
                break;
            }
            if (!isPlumbing(frame.getClassName())) {
                key.append('\n').append(frame.getClassName()).append('.').append(frame.getMethodName());
                counted++;
            }
        }
        if (root instanceof Reasoned reasoned && reasoned.reasonCode() != null) {
            key.append("\nreason:").append(reasoned.reasonCode());
        }
        return HexFormat.of().formatHex(sha256(key.toString())).substring(0, LENGTH);
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
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }
}
