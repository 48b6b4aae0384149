package org.ingestquarantine.parse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes PDF files byte by byte, for shapes PDFBox refuses to produce. Objects are numbered from 1 in the
 * order added; the xref table gets correct offsets unless a test patches the bytes afterwards.
 */
final class RawPdf {

    private final List<byte[]> objects = new ArrayList<>();
    private String header = "%PDF-1.4";

    RawPdf header(String value) {
        header = value;
        return this;
    }

    /** Adds {@code N 0 obj <body> endobj}; returns N. */
    int add(String body) {
        objects.add(ascii(body));
        return objects.size();
    }

    /** Adds a stream object with the given dictionary entries (without /Length) and raw data; returns N. */
    int addStream(String dictionaryEntries, byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ascii("<< " + dictionaryEntries + " /Length " + data.length + " >>\nstream\n"));
        out.writeBytes(data);
        out.writeBytes(ascii("\nendstream"));
        objects.add(out.toByteArray());
        return objects.size();
    }

    /**
     * @param trailerExtra extra trailer entries, e.g. {@code /Prev 1234}; {@code %XREF%} in it is replaced
     *     by the offset of this file's own xref table
     */
    byte[] bytes(int rootObject, String trailerExtra) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ascii(header + "\n%\u00e2\u00e3\u00cf\u00d3\n"));
        long[] offsets = new long[objects.size() + 1];
        for (int i = 0; i < objects.size(); i++) {
            offsets[i + 1] = out.size();
            out.writeBytes(ascii((i + 1) + " 0 obj\n"));
            out.writeBytes(objects.get(i));
            out.writeBytes(ascii("\nendobj\n"));
        }
        long xref = out.size();
        StringBuilder table = new StringBuilder("xref\n0 " + (objects.size() + 1) + "\n0000000000 65535 f \n");
        for (int i = 1; i <= objects.size(); i++) {
            table.append(String.format("%010d 00000 n \n", offsets[i]));
        }
        String extra = trailerExtra.replace("%XREF%", Long.toString(xref));
        table.append("trailer\n<< /Size ").append(objects.size() + 1).append(" /Root ").append(rootObject)
                .append(" 0 R ").append(extra).append(" >>\nstartxref\n").append(xref).append("\n%%EOF\n");
        out.writeBytes(ascii(table.toString()));
        return out.toByteArray();
    }

    void write(Path file, int rootObject, String trailerExtra) throws IOException {
        Files.write(file, bytes(rootObject, trailerExtra));
    }

    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A content stream that writes one line of text with font /F1 at the top of the page. */
    static byte[] textContent(String text) {
        return ascii("BT /F1 12 Tf 72 720 Td (" + text + ") Tj ET");
    }

    /** A Helvetica font dictionary body, for /Resources << /Font << /F1 n 0 R >> >>. */
    static String helvetica() {
        return "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";
    }
}
