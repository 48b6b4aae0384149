package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.apache.commons.codec.digest.DigestUtils;
import org.ingestquarantine.failure.PermanentInputException;

/**
 * Copies a stream to a file while hashing it (SHA-256) and keeping its first bytes for type sniffing.
 *
 * @param bytes bytes copied
 * @param sha256 lower-case hex SHA-256
 * @param head the first up to {@value #HEAD_BYTES} bytes
 * @param headLength how many of {@code head} are valid
 */
record DigestingCopy(long bytes, String sha256, byte[] head, int headLength) {

    /** Bytes kept for {@link ContentTypes#sniff}. */
    static final int HEAD_BYTES = 1024;

    /**
     * @param in the source; not closed here
     * @param target the file to write
     * @param maxBytes a stream longer than this is refused
     * @return what was copied
     * @throws PermanentInputException with reason {@code too_large} past {@code maxBytes}
     * @throws IOException when reading or writing fails
     */
    static DigestingCopy copy(InputStream in, Path target, long maxBytes) throws IOException {
        MessageDigest sha = DigestUtils.getSha256Digest();
        long total = 0;
        byte[] head = new byte[HEAD_BYTES];
        int headLength = 0;
        try (InputStream digesting = new DigestInputStream(in, sha); OutputStream out = Files.newOutputStream(target)) {
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = digesting.read(buf)) > 0) {
                if (headLength < HEAD_BYTES) {
                    int take = Math.min(n, HEAD_BYTES - headLength);
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
        return new DigestingCopy(total, HexFormat.of().formatHex(sha.digest()), head, headLength);
    }
}
