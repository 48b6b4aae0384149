package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The local file-system source: {@code file://} URIs. HEAD is a stat; the version is the content's
 * SHA-256, since a file has no etag.
 */
public final class FolderConnector implements SourceConnector {

    /** Stored as {@code connector_version}. */
    public static final String VERSION = "folder-1";

    private static final int MAGIC_BYTES = 1024;

    @Override
    public String scheme() {
        return "file";
    }

    @Override
    public String version() {
        return VERSION;
    }

    @Override
    public SourceHead head(URI uri) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(Path.of(uri), BasicFileAttributes.class);
        if (!attrs.isRegularFile()) {
            throw new PermanentInputException("not_a_file", "the source path is not a regular file");
        }
        return new SourceHead(attrs.size(), attrs.lastModifiedTime().toInstant(), null);
    }

    @Override
    public FetchedDocument fetch(URI uri, Path target, long maxBytes) throws IOException {
        Path file = Path.of(uri);
        MessageDigest sha = sha256();
        long total = 0;
        byte[] head = new byte[MAGIC_BYTES];
        int headLength = 0;
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha);
             OutputStream out = Files.newOutputStream(target)) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) > 0) {
                if (headLength < MAGIC_BYTES) {
                    int take = Math.min(n, MAGIC_BYTES - headLength);
                    System.arraycopy(buf, 0, head, headLength, take);
                    headLength += take;
                }
                total += n;
                if (total > maxBytes) {
                    throw new PermanentInputException("too_large", "the document is larger than ingest.max-bytes=" + maxBytes);
                }
                out.write(buf, 0, n);
            }
        }
        String hex = HexFormat.of().formatHex(sha.digest());
        var updated = Files.getLastModifiedTime(file).toInstant();
        return new FetchedDocument(target, total, hex, hex, updated, ContentTypes.sniff(head, headLength));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }
}
