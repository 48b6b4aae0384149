package org.ingestquarantine.delivery;

import java.sql.SQLException;
import org.ingestquarantine.db.DatabaseAccessException;
import org.ingestquarantine.db.SqlFailure;

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

    /**
     * @param what what was not journalled or read
     * @param e the driver's exception
     * @return the journal's failure: what failed, why in one safe line, and that the message waits
     */
    static JournalWriteException journal(String what, SQLException e) {
        return new JournalWriteException(what + " (" + SqlFailure.describe(e)
                + "); do not start or acknowledge the message, pause consumption until PostgreSQL answers again", e);
    }
}
