package org.ingestquarantine.failure;

/**
 * An exception that happened in another process (a parser worker JVM), rebuilt in this one.
 *
 * <p>It keeps the original exception's class name and stack frames, so that the error fingerprint of
 * a failure inside a worker is the same as if it had happened in-process. It never carries document
 * text: the message is the original exception's message only.
 */
public class RemoteCause extends Exception {

    private final String remoteType;

    /**
     * @param remoteType fully-qualified class name of the original exception
     * @param message the original exception's message, may be {@code null}
     * @param frames the original stack frames, outermost call last
     */
    public RemoteCause(String remoteType, String message, StackTraceElement[] frames) {
        super(message, null, false, true);
        this.remoteType = remoteType;
        setStackTrace(frames);
    }

    /** @return the fully-qualified class name of the exception thrown in the other process */
    public String remoteType() {
        return remoteType;
    }

    @Override
    public String toString() {
        String message = getMessage();
        return message == null ? remoteType : remoteType + ": " + message;
    }
}
