package org.ingestquarantine.quarantine;

import org.ingestquarantine.db.DatabaseAccessException;

/**
 * A quarantine record could not be written (database or payload store unreachable). Nothing was
 * committed: the caller must NOT acknowledge the message, so the broker redelivers it or dead-letters it
 * into its backstop DLQ, from which it is swept into the table later.
 */
public class QuarantineWriteException extends DatabaseAccessException {

    /**
     * @param message what failed and what to do next; never document text
     * @param cause the underlying exception
     */
    public QuarantineWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
