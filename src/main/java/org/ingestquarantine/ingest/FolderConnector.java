package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.ingestquarantine.failure.PermanentInputException;

/**
 * The local file-system source: {@code file://} URIs. HEAD is a stat; the version is the content's
 * SHA-256, since a file has no etag. The file read is the one the guard returns (its real path), and a
 * malformed {@code file:} URI is permanent_input with reason {@code invalid_uri}.
 */
public final class FolderConnector implements SourceConnector {

    /** Stored as {@code connector_version}. */
    public static final String VERSION = "folder-1";

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
        BasicFileAttributes attrs = Files.readAttributes(SourceAccess.filePath(guard.check(uri)), BasicFileAttributes.class);
        if (!attrs.isRegularFile()) {
            throw new PermanentInputException("not_a_file", "the source path is not a regular file");
        }
        return new SourceHead(attrs.size(), attrs.lastModifiedTime().toInstant(), null);
    }

    @Override
    public FetchedDocument fetch(URI uri, Path target, long maxBytes, UriGuard guard) throws IOException {
        Path file = SourceAccess.filePath(guard.check(uri));
        DigestingCopy copy;
        try (InputStream in = Files.newInputStream(file)) {
            copy = DigestingCopy.copy(in, target, maxBytes);
        }
        var updated = Files.getLastModifiedTime(file).toInstant();
        return new FetchedDocument(target, copy.bytes(), copy.sha256(), copy.sha256(), updated,
                ContentTypes.sniff(copy.head(), copy.headLength()));
    }
}
