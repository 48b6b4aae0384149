package org.ingestquarantine.parse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * Parses a small generated PDF once when a worker starts, so that class loading and font set-up are paid
 * before the worker reports ready, not by the first document (whose time limit would pay for it).
 */
final class WorkerWarmUp {

    private static final int ROUNDS = 3;

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
            PDPage page = new PDPage();
            document.addPage(page);
            try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                content.beginText();
                content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                content.newLineAtOffset(72, 720);
                content.showText("warm up");
                content.endText();
            }
            document.save(file.toFile());
        }
    }
}
