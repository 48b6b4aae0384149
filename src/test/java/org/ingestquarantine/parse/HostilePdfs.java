package org.ingestquarantine.parse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.Deflater;

/**
 * Hostile PDFs built from raw bytes, one static method per shape, each writing one file. Small on disk,
 * each attacks the parser differently; usable as fuzzing seeds. Every shape carries a line of text, so a
 * parser that survives it has something to find.
 */
public final class HostilePdfs {

    /** The /Count a page tree claims in {@link #pageCountBillions}; a real-world value. */
    public static final long CLAIMED_PAGES = 1_410_065_407L;

    private static final Map<Long, byte[]> BOMBS = new ConcurrentHashMap<>();

    private HostilePdfs() {
    }

    /** A one-page document whose trailer's /Prev points at its own xref table. */
    public static void xrefPrevSelfLoop(Path file) throws IOException {
        RawPdf pdf = onePage("Prev loop survivor");
        pdf.write(file, 1, "/Prev %XREF%");
    }

    /** A page tree whose /Count claims {@value #CLAIMED_PAGES} pages while it has one. */
    public static void pageCountBillions(Path file) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count " + CLAIMED_PAGES + " >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.textContent("One page among billions claimed"));
        pdf.write(file, 1, "");
    }

    /**
     * A content stream behind two Flate filters that inflates to {@code decodedBytes} zero bytes
     * (pass several GiB for a bomb); the file stays a few KiB.
     */
    public static void nestedFlateBomb(Path file, long decodedBytes) throws IOException {
        byte[] data = BOMBS.computeIfAbsent(decodedBytes, n -> deflate(deflateZeros(n)));
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents [5 0 R 6 0 R] >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.textContent("Text before the bomb"));
        pdf.addStream("/Filter [/FlateDecode /FlateDecode]", data);
        pdf.write(file, 1, "");
    }

    /** An inline image (BI ... ID) whose data never ends with EI. */
    public static void inlineImageWithoutEnd(Path file) throws IOException {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        content.writeBytes(RawPdf.textContent("Words before the image"));
        content.writeBytes(RawPdf.ascii("\nBI /W 64 /H 64 /CS /G /BPC 8 ID "));
        for (int i = 0; i < 4096; i++) {
            content.write((i * 31) & 0xff);
        }
        content.writeBytes(RawPdf.ascii("\nBT /F1 12 Tf 72 600 Td (Words after the image) Tj ET\n"));
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", content.toByteArray());
        pdf.write(file, 1, "");
    }

    /** A page tree whose /Kids contains an intermediate node that lists the root among its own kids. */
    public static void kidsContainAncestor(Path file) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.textContent("A page beside a loop"));
        pdf.add("<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>");
        pdf.write(file, 1, "");
    }

    /** A page drawing an image that declares {@code width} x {@code height} pixels but holds a few bytes. */
    public static void hugeImage(Path file, long width, long height) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Im1 6 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.ascii("BT /F1 12 Tf 72 720 Td (Caption of a vast picture) Tj ET q 100 0 0 100 72 500 cm /Im1 Do Q"));
        pdf.addStream("/Type /XObject /Subtype /Image /Width " + width + " /Height " + height
                + " /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", deflate(new byte[64]));
        pdf.write(file, 1, "");
    }

    /** A flat page tree of {@code pages} real pages sharing one content stream. */
    public static void manyPages(Path file, int pages) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        StringBuilder kids = new StringBuilder();
        for (int i = 0; i < pages; i++) {
            kids.append(5 + i).append(" 0 R ");
        }
        pdf.add("<< /Type /Pages /Kids [" + kids + "] /Count " + pages + " >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.textContent("Same words on every page"));
        for (int i = 0; i < pages; i++) {
            pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>");
        }
        pdf.write(file, 1, "");
    }

    /** A form XObject that draws itself. */
    public static void selfDrawingForm(Path file) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Fm1 6 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.ascii("BT /F1 12 Tf 72 720 Td (Outside the mirror) Tj ET /Fm1 Do"));
        pdf.addStream("/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> /XObject << /Fm1 6 0 R >> >>",
                RawPdf.ascii("BT /F1 12 Tf 72 700 Td (Inside the mirror) Tj ET /Fm1 Do"));
        pdf.write(file, 1, "");
    }

    /** A page tree nested {@code depth} levels deep above its only page. */
    public static void deepPageTree(Path file, int depth) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        int firstNode = 2;
        for (int level = 0; level < depth; level++) {
            int self = firstNode + level;
            String parent = level == 0 ? "" : "/Parent " + (self - 1) + " 0 R ";
            pdf.add("<< /Type /Pages " + parent + "/Kids [" + (self + 1) + " 0 R] /Count 1 >>");
        }
        int page = firstNode + depth;
        pdf.add("<< /Type /Page /Parent " + (page - 1) + " 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 "
                + (page + 1) + " 0 R >> >> /Contents " + (page + 2) + " 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.textContent("At the bottom of a deep tree"));
        pdf.write(file, 1, "");
    }

    /**
     * One page whose Flate-compressed content shows {@code operators} tiny strings: cheap on disk, costly in
     * time and heap for a text extractor, which keeps every glyph position of a page.
     */
    public static void textFlood(Path file, int operators) throws IOException {
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        content.writeBytes(RawPdf.ascii("BT /F1 2 Tf 10 780 Td\n"));
        byte[] step = RawPdf.ascii("0.5 -0.01 Td (ab) Tj\n");
        for (int i = 0; i < operators; i++) {
            content.writeBytes(step);
        }
        content.writeBytes(RawPdf.ascii("ET"));
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("/Filter /FlateDecode", deflate(content.toByteArray()));
        pdf.write(file, 1, "");
    }

    private static RawPdf onePage(String text) {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
        pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>");
        pdf.add(RawPdf.helvetica());
        pdf.addStream("", RawPdf.textContent(text));
        return pdf;
    }

    static byte[] deflate(byte[] data) {
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        deflater.setInput(data);
        deflater.finish();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[64 * 1024];
        while (!deflater.finished()) {
            out.write(buffer, 0, deflater.deflate(buffer));
        }
        deflater.end();
        return out.toByteArray();
    }

    /**
     * A zlib stream of {@code count} zero bytes (rounded up to whole MiB), built in milliseconds: the
     * compressed form of one MiB of zeros following zeros is byte-aligned after a sync flush and can be
     * repeated, since it only refers back to zeros.
     */
    private static byte[] deflateZeros(long count) {
        int mebibyte = 1 << 20;
        long blocks = Math.max(1, (count + mebibyte - 1) / mebibyte);
        byte[] zeros = new byte[mebibyte];
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        byte[] first = flush(deflater, zeros, Deflater.SYNC_FLUSH);
        byte[] repeated = flush(deflater, zeros, Deflater.SYNC_FLUSH);
        deflater.finish();
        byte[] last = flush(deflater, new byte[0], Deflater.FULL_FLUSH);
        deflater.end();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x78);
        out.write(0xDA);
        out.writeBytes(first);
        for (long i = 1; i < blocks; i++) {
            out.writeBytes(repeated);
        }
        out.writeBytes(last);
        long adlerB = (blocks * mebibyte) % 65521; // Adler-32 of n zeros: a = 1, b = n mod 65521
        long adler = (adlerB << 16) | 1;
        for (int shift = 24; shift >= 0; shift -= 8) {
            out.write((int) (adler >>> shift) & 0xff);
        }
        return out.toByteArray();
    }

    private static byte[] flush(Deflater deflater, byte[] input, int mode) {
        deflater.setInput(input);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[64 * 1024];
        while (true) {
            int written = deflater.deflate(buffer, 0, buffer.length, mode);
            out.write(buffer, 0, written);
            if (written < buffer.length && (deflater.needsInput() || deflater.finished())) {
                break;
            }
        }
        return out.toByteArray();
    }

    /**
     * Three pages whose second one PDFBox rejects while extracting its text (an inline image without ID):
     * the other two pages' text survives, page 2 is lost.
     *
     * @param file where to write
     * @throws IOException when it cannot be written
     */
    public static void secondPageLost(Path file) throws IOException {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [4 0 R 5 0 R 6 0 R] /Count 3 >>");
        pdf.add(RawPdf.helvetica());
        for (int i = 0; i < 3; i++) {
            pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents "
                    + (7 + i) + " 0 R >>");
        }
        pdf.addStream("", RawPdf.ascii("BT /F1 12 Tf 72 720 Td (Alpha page with enough words to index) Tj ET"));
        pdf.addStream("", RawPdf.ascii("BT /F1 12 Tf 72 720 Td (Never seen) Tj ET BI /W 1 /H 1 /BPC 8 /CS /G In ( "));
        pdf.addStream("", RawPdf.ascii("BT /F1 12 Tf 72 720 Td (Gamma page with enough words to index) Tj ET"));
        pdf.write(file, 1, "");
    }

}
