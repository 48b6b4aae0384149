package org.ingestquarantine.delivery;

import org.ingestquarantine.db.DatabaseAccessException;

/**
 * The attempt journal could not be read or written. The caller must not start work on the message
 * (an unrecorded attempt would be an uncounted death) and must not acknowledge it.
 */
public class JournalWriteException extends DatabaseAccessException {

    /**
     * @param message what failed and what to do next
     * @param cause the driver's exception
     */
    public JournalWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
