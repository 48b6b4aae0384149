package org.ingestquarantine.ingest;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;

/**
 * The doc_id of a file in a folder source: its path relative to the root, {@code /}-separated, decoded from the
 * bytes the file system holds as UTF-8. A name is bytes, not text, so the decoding is lossless (two files never
 * share a doc_id): each byte that is not part of valid UTF-8 is written {@value #MARK} and its two upper-case hex
 * digits, and a {@value #MARK} the name itself holds is written twice. A valid UTF-8 name without {@value #MARK}
 * (nearly every name) is its doc_id unchanged. The bytes come from the path's URI, not from
 * {@link Path#toString()}, which replaces what the platform's encoding cannot decode.
 */
public final class FolderDocIds {

    /** U+FFFD, the replacement character: what a lossy decoder would have put in place of the bytes. */
    static final char MARK = '\uFFFD';

    private FolderDocIds() {
    }

    /**
     * @param root the folder, absolute
     * @param file a file under it, absolute
     * @return the file's doc_id
     * @throws IllegalArgumentException when {@code file} is not under {@code root}
     */
    public static String of(Path root, Path file) {
        String rootRaw = root.toUri().getRawPath();
        String fileRaw = file.toUri().getRawPath();
        String prefix = rootRaw.endsWith("/") ? rootRaw : rootRaw + "/";
        if (!fileRaw.startsWith(prefix) || fileRaw.length() == prefix.length()) {
            throw new IllegalArgumentException(file + " is not under " + root);
        }
        return decode(RawPathBytes.decoded(fileRaw.substring(prefix.length())));
    }

    /** @return {@code bytes} as UTF-8, each malformed byte as {@value #MARK} + hex, a {@value #MARK} doubled */
    static String decode(byte[] bytes) {
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        StringBuilder id = new StringBuilder(bytes.length);
        while (true) {
            CoderResult r = utf8.decode(in, out, true);
            append(id, out);
            if (r.isUnderflow()) {
                break;
            }
            if (r.isError()) {
                for (int i = 0; i < r.length(); i++) {
                    id.append(MARK).append(HexFormat.of().toHexDigits(in.get()).toUpperCase(Locale.ROOT));
                }
            }
        }
        utf8.flush(out);
        append(id, out);
        return id.toString();
    }

    private static void append(StringBuilder id, CharBuffer out) {
        out.flip();
        while (out.hasRemaining()) {
            char c = out.get();
            id.append(c);
            if (c == MARK) {
                id.append(MARK);
            }
        }
        out.clear();
    }
}
