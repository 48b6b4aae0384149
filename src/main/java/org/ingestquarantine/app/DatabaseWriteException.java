package org.ingestquarantine.app;

/**
 * A write to PostgreSQL failed while the pipeline was running (outage, timeout, constraint). Nothing was
 * committed. Subclasses name the store; callers must not acknowledge the message they were handling.
 * The cause is the driver's {@link java.sql.SQLException}; the message never carries document text.
 */
public class DatabaseWriteException extends RuntimeException {

    /**
     * @param message what failed and what to do next
     * @param cause the driver's exception
     */
    public DatabaseWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
