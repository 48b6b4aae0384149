package org.ingestquarantine.db;

/**
 * PostgreSQL could not be reached or migrated at start-up. The message is one line that says what to do
 * ("PostgreSQL at &lt;url&gt; is unreachable: &lt;reason&gt;; start it or set db.url"); print it, not the
 * stack trace.
 */
public class DatabaseUnavailableException extends RuntimeException {

    /**
     * @param message one line, what failed and what to do next
     * @param cause the driver's exception
     */
    public DatabaseUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
