package org.ingestquarantine.parse;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDFont;
import org.apache.pdfbox.pdmodel.font.PDType0Font;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * Parses a generated PDF a few times when a worker starts, so that class loading, font set-up and the first
 * JIT compilations are paid before the worker reports ready, not by the first documents (whose time limit would
 * pay for it). The document looks like the text PDFs the pipeline sees: several pages of compressed content
 * streams in the standard 14 fonts and in an embedded TrueType subset (Type 0, Identity-H, with a ToUnicode map).
 */
final class WorkerWarmUp {

    private static final int ROUNDS = 4;
    private static final int PAGES = 6;
    private static final int LINES = 40;
    private static final String TTF = "/org/apache/pdfbox/resources/ttf/LiberationSans-Regular.ttf";

    private WorkerWarmUp() {
    }

    /** Never fails: a warm-up problem only means a slower first document. */
    static void run(InProcessPdfParser parser) {
        try {
            Path file = Files.createTempFile("iq-parse-warmup-", ".pdf");
            try {
                write(file);
                for (int i = 0; i < ROUNDS; i++) {
                    parser.parse(file);
                }
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (IOException | ParseException | RuntimeException ignored) {
            // the worker works without warm-up, just slower at first
        }
    }

    private static void write(Path file) throws IOException {
        try (PDDocument document = new PDDocument()) {
            PDFont[] fonts = {new PDType1Font(Standard14Fonts.FontName.HELVETICA),
                    new PDType1Font(Standard14Fonts.FontName.TIMES_ROMAN), new PDType1Font(Standard14Fonts.FontName.COURIER),
                    embeddedFont(document)};
            for (int p = 0; p < PAGES; p++) {
                PDPage page = new PDPage();
                document.addPage(page);
                try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                    PDFont font = fonts[p % fonts.length];
                    content.beginText();
                    content.setFont(font, 10);
                    content.setLeading(14);
                    content.newLineAtOffset(72, 740);
                    for (int line = 0; line < LINES; line++) {
                        content.showText("Warm-up line " + line + " of page " + (p + 1)
                                + ": the quick brown fox jumps over the lazy dog, 0123456789.");
                        content.newLine();
                    }
                    content.endText();
                }
            }
            document.save(file.toFile());
        }
    }

    /** PDFBox's own Liberation Sans as an embedded subset, or Helvetica where the resource is missing. */
    private static PDFont embeddedFont(PDDocument document) throws IOException {
        try (InputStream ttf = WorkerWarmUp.class.getResourceAsStream(TTF)) {
            return ttf == null ? new PDType1Font(Standard14Fonts.FontName.HELVETICA) : PDType0Font.load(document, ttf);
        }
    }
}
