package org.ingestquarantine.ingest;

import org.ingestquarantine.db.DatabaseAccessException;

/**
 * The index could not be read or written (database unreachable, timeout). Nothing was committed: the
 * document keeps its previous indexed version, and the caller must not acknowledge the message.
 */
public class IndexWriteException extends DatabaseAccessException {

    /**
     * @param message what failed and what to do next; never document text
     * @param cause the driver's exception
     */
    public IndexWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
