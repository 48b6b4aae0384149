package org.ingestquarantine.cli;

import org.ingestquarantine.db.DatabaseUnavailableException;
import org.ingestquarantine.failure.ErrorFingerprint;

/** Reduces a start-up or run failure to one line a user can act on, without a stack trace. */
final class OneLineError {

    private OneLineError() {
    }

    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DatabaseUnavailableException) {
                return t.getMessage();
            }
        }
        Throwable root = ErrorFingerprint.rootCause(e);
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.lines().findFirst().orElse(message);
    }
}
