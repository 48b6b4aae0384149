package org.ingestquarantine.db;

/**
 * A read or write of PostgreSQL failed while the pipeline was running (outage, timeout, constraint). Nothing
 * was committed. Subclasses name the store; a caller handling a message must not acknowledge it, and
 * should pause consumption (circuit breaker) rather than burn deliveries.
 * The cause is the driver's {@link java.sql.SQLException}; the message never carries document text.
 */
public class DatabaseAccessException extends RuntimeException {

    /**
     * @param message what failed and what to do next
     * @param cause the driver's exception
     */
    public DatabaseAccessException(String message, Throwable cause) {
        super(message, cause);
    }
}
