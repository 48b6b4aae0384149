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
        if (root instanceof java.nio.file.FileSystemException fs) {
            // its message is often the path alone ("/proc/nope"): say what went wrong with it
            return describe(fs);
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return message.lines().findFirst().orElse(message);
    }

    /** @return "{@code <what> <file>[ (<reason>)]}" for a file-system failure, e.g. "no such file or folder: /x" */
    static String describe(java.nio.file.FileSystemException e) {
        String what;
        if (e instanceof java.nio.file.NoSuchFileException) {
            what = "no such file or folder";
        } else if (e instanceof java.nio.file.AccessDeniedException) {
            what = "permission denied";
        } else if (e instanceof java.nio.file.FileAlreadyExistsException) {
            what = "a file is in the way";
        } else if (e instanceof java.nio.file.NotDirectoryException) {
            what = "not a folder";
        } else {
            what = "cannot use";
        }
        String line = what + ": " + e.getFile() + (e.getOtherFile() == null ? "" : " (and " + e.getOtherFile() + ")")
                + (e.getReason() == null ? "" : " (" + e.getReason() + ")");
        return line.lines().findFirst().orElse(line);
    }
}
