package org.ingestquarantine.parse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Decides from the bytes alone whether a file can be a PDF, because PDFBox reports non-PDF input with the
 * same exceptions as damaged PDFs. Only the first {@value #SEARCH_WINDOW_BYTES} bytes are read.
 *
 * <p>A file is taken for a PDF when that window holds the header marker {@code %PDF} (junk before it,
 * and a missing dash as in {@code %PDF1.4}, are tolerated as readers do), or, for a PDF whose header was
 * lost, PDF object syntax: an object header such as {@code 1 0 obj} or a {@code trailer <<}. Such a file
 * is a damaged PDF, not another format, and goes on to PDFBox.
 */
public final class PdfSignature {

    /** How many leading bytes are inspected. */
    static final int SEARCH_WINDOW_BYTES = 1024;

    private static final Pattern HEADER = Pattern.compile("%PDF");
    private static final Pattern HEADERLESS_PDF_SYNTAX =
            Pattern.compile("(?:^|[\\r\\n])\\s*\\d{1,10}\\s+\\d{1,5}\\s+obj\\b|\\btrailer\\s*<<");

    private PdfSignature() {
    }

    /**
     * @throws NotPdfException reason {@code empty} for 0 bytes, {@code not_pdf} for bytes that are not a PDF
     * @throws IOException the file cannot be read
     */
    static void check(Path file) throws NotPdfException, IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(SEARCH_WINDOW_BYTES);
        }
        if (head.length == 0) {
            throw NotPdfException.empty();
        }
        if (!matches(head, head.length)) {
            throw NotPdfException.notPdf();
        }
    }

    /**
     * The one rule for "these bytes are a PDF", shared by the parser and the fetcher's content type.
     *
     * @param head the first bytes of a document (at most {@value #SEARCH_WINDOW_BYTES} are looked at)
     * @param length how many of them are valid
     * @return whether they carry a {@code %PDF} header or header-less PDF object syntax
     */
    public static boolean matches(byte[] head, int length) {
        String window = new String(head, 0, Math.min(length, SEARCH_WINDOW_BYTES), StandardCharsets.ISO_8859_1);
        return HEADER.matcher(window).find() || HEADERLESS_PDF_SYNTAX.matcher(window).find();
    }
}
