package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;

/**
 * The local file-system source: {@code file://} URIs. HEAD is a stat of the opened file; the version is the
 * content's SHA-256, since a file has no etag. What the guard checked is what is read (DESIGN.md §9): the guard's
 * real path is opened once with no symbolic link followed at any component and without blocking
 * ({@link NoFollowFile}), only a regular file with one name is read, from that handle, and its size and time are
 * the handle's. Refusals, all permanent_input: {@code symlink_refused} (a link met where the real path had none:
 * swapped in after the check), {@code not_a_file} (a FIFO, device, socket or folder), {@code hard_link} (a
 * regular file with other names too, any of which may lie outside the roots); a malformed {@code file:} URI is
 * {@code invalid_uri}. A read is bounded in size ({@code ingest.max-bytes}) and time ({@code http.body-deadline-ms},
 * the bound of every fetch's body): past it, transient {@code timeout}.
 */
public final class FolderConnector implements SourceConnector {

    /** Stored as {@code connector_version}. */
    public static final String VERSION = "folder-1";

    private final Duration readDeadline;

    /** @param readDeadline most time one file's read may take ({@code http.body-deadline-ms}) */
    public FolderConnector(Duration readDeadline) {
        if (readDeadline.isNegative() || readDeadline.isZero()) {
            throw new IllegalArgumentException("the read deadline must be positive, was " + readDeadline);
        }
        this.readDeadline = Objects.requireNonNull(readDeadline, "readDeadline");
    }

    @Override
    public String scheme() {
        return "file";
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public SourceHead head(URI uri, UriGuard guard) throws IOException {
        try (NoFollowFile file = openChecked(uri, guard)) {
            return new SourceHead(file.size(), file.lastModifiedTime().toInstant(), null);
        }
    }

    @Override
    public FetchedDocument fetch(URI uri, Path target, long maxBytes, UriGuard guard) throws IOException {
        long deadline = System.nanoTime() + readDeadline.toNanos();
        try (NoFollowFile file = openChecked(uri, guard)) {
            DigestingCopy copy = DigestingCopy.copy(new Timed(file, deadline, readDeadline), target, maxBytes);
            var updated = file.refreshed().lastModifiedTime().toInstant();
            return new FetchedDocument(target, copy.bytes(), copy.sha256(), copy.sha256(), updated,
                    ContentTypes.sniff(copy.head(), copy.headLength()));
        }
    }

    /** @return the guard's path, opened; a regular file with one name */
    private static NoFollowFile openChecked(URI uri, UriGuard guard) throws IOException {
        NoFollowFile file = NoFollowFile.open(SourceAccess.filePath(guard.check(uri)));
        try {
            if (!file.isRegularFile()) {
                throw new PermanentInputException("not_a_file",
                        "the source path is not a regular file (a FIFO, device, socket or folder): not read");
            }
            if (file.linkCount() > 1) {
                throw new PermanentInputException("hard_link", "the source file has " + file.linkCount()
                        + " names (hard links), any of which may lie outside the source's roots: not read;"
                        + " copy it into the root instead of linking it");
            }
            return file;
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /** The file's bytes, each read refused once the deadline has passed. */
    private static final class Timed extends InputStream {
        private final NoFollowFile file;
        private final long deadlineNanos;
        private final Duration limit;

        Timed(NoFollowFile file, long deadlineNanos, Duration limit) {
            this.file = file;
            this.deadlineNanos = deadlineNanos;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            byte[] one = readNBytes(1);
            return one.length == 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (System.nanoTime() - deadlineNanos >= 0) {
                throw new TransientException("timeout", "the local file was not read within " + limit.toMillis()
                        + " ms (http.body-deadline-ms)", null);
            }
            return file.read(b, off, len);
        }
    }
}
