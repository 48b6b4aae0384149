package org.ingestquarantine.ingest;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The bytes a path is made of on the file system, whatever their encoding: read from its URI (which escapes every
 * byte it does not keep as is), not from {@link Path#toString()}, which replaces what the platform's encoding cannot
 * decode (two different names would read the same).
 */
final class RawPathBytes {

    private RawPathBytes() {
    }

    /** @return the bytes of {@code path}'s URI path ({@code /}-separated; a folder's ends with {@code /}) */
    static byte[] of(Path path) {
        return decoded(path.toUri().getRawPath());
    }

    /** @return {@code rawPath} (a URI's raw path) with its percent escapes decoded to the bytes they stand for */
    static byte[] decoded(String rawPath) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(rawPath.length());
        for (int i = 0; i < rawPath.length(); i++) {
            char c = rawPath.charAt(i);
            if (c == '%' && i + 2 < rawPath.length()) {
                bytes.write(Integer.parseInt(rawPath, i + 1, i + 3, 16));
                i += 2;
            } else {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
            }
        }
        return bytes.toByteArray();
    }
}
