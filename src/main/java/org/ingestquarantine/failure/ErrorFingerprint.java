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
 * {@value #FRAMES} stack frames written as {@code class.method}. Line numbers and messages are left out,
 * so the fingerprint survives unrelated edits and never depends on document content.
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
        StackTraceElement[] frames = root.getStackTrace();
        for (int i = 0; i < Math.min(FRAMES, frames.length); i++) {
            key.append('\n').append(frames[i].getClassName()).append('.').append(frames[i].getMethodName());
        }
        return HexFormat.of().formatHex(sha256(key.toString())).substring(0, LENGTH);
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
