package org.ingestquarantine.quarantine;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * Hashes what passes through and, at the end of the stream, throws {@link PayloadCorruptException} if the bytes'
 * SHA-256 is not the expected one. A reader that stops before the end is not checked.
 */
final class Sha256VerifyingInputStream extends FilterInputStream {

    private final MessageDigest digest = DigestUtils.getSha256Digest();
    private final String expected;
    private final String uri;
    private boolean checked;

    /**
     * @param in the object's bytes
     * @param expected the SHA-256 (lower-case hex) that names the object
     * @param uri the object's URI, for the message
     */
    Sha256VerifyingInputStream(InputStream in, String expected, String uri) {
        super(in);
        this.expected = expected;
        this.uri = uri;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b < 0) {
            check();
        } else {
            digest.update((byte) b);
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n < 0) {
            check();
        } else {
            digest.update(buffer, offset, n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        // skipped bytes must be hashed too
        long skipped = 0;
        byte[] buffer = new byte[8192];
        while (skipped < n) {
            int r = read(buffer, 0, (int) Math.min(buffer.length, n - skipped));
            if (r < 0) {
                break;
            }
            skipped += r;
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    @Override
    public synchronized void mark(int limit) {
        // not supported: a reset would hash bytes twice
    }

    @Override
    public synchronized void reset() throws IOException {
        throw new IOException("mark/reset not supported");
    }

    private void check() throws PayloadCorruptException {
        if (checked) {
            return;
        }
        checked = true;
        String actual = HexFormat.of().formatHex(digest.digest());
        if (!actual.equals(expected)) {
            throw new PayloadCorruptException("object " + uri + " is damaged in the store: its bytes hash to sha256 "
                    + actual);
        }
    }
}
