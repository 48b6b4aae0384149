package org.ingestquarantine.cli;

import java.util.List;
import java.util.Optional;
import org.apache.camel.FailedToCreateRouteException;
import org.ingestquarantine.db.DatabaseUnavailableException;
import org.ingestquarantine.failure.ErrorFingerprint;

/**
 * Reduces a start-up or run failure to one line a user can act on, without a stack trace; a route file Camel could
 * not read ({@link RouteFileError}) also keeps Camel's marked place, on the lines that follow ({@link #details}).
 */
final class OneLineError {

    private OneLineError() {
    }

    static String describe(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DatabaseUnavailableException) {
                return t.getMessage();
            }
        }
        Optional<RouteFileError> routeFile = RouteFileError.in(e);
        if (routeFile.isPresent()) {
            return routeFile.get().firstLine();
        }
        Throwable root = ErrorFingerprint.rootCause(e);
        if (root instanceof java.nio.file.FileSystemException fs) {
            // its message is often the path alone ("/proc/nope"): say what went wrong with it
            return describe(fs);
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        String line = message.lines().findFirst().orElse(message);
        return routeOf(e).map(route -> "route " + route + ": " + line).orElse(line);
    }

    /**
     * @return the lines to print after {@link #describe(Throwable)}'s: Camel's text of a route file it could not
     *     read (file, line, column, the line and a caret), nothing for any other failure
     */
    static List<String> details(Throwable e) {
        return RouteFileError.in(e).map(RouteFileError::details).orElse(List.of());
    }

    /** @return the id of the route Camel could not create (an unknown bean or component), if that is the failure */
    private static Optional<String> routeOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof FailedToCreateRouteException f && f.getRouteId() != null) {
                return Optional.of(f.getRouteId());
            }
        }
        return Optional.empty();
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
