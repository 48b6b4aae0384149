package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/** Writes a valid text PDF with many pages: slow enough to parse that a test can act while it parses. */
public final class LongPdf {

    private LongPdf() {
    }

    /**
     * @param target file to write
     * @param pages number of pages, each with a few lines of generated text
     * @return {@code target}
     * @throws IOException when it cannot be written
     */
    public static Path write(Path target, int pages) throws IOException {
        try (PDDocument doc = new PDDocument()) {
            PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
            for (int p = 1; p <= pages; p++) {
                PDPage page = new PDPage();
                doc.addPage(page);
                try (PDPageContentStream s = new PDPageContentStream(doc, page)) {
                    s.beginText();
                    s.setFont(font, 11);
                    s.newLineAtOffset(72, 700);
                    for (int line = 0; line < 30; line++) {
                        s.showText("Page " + p + " line " + line + " of a long generated test document about nothing much.");
                        s.newLineAtOffset(0, -14);
                    }
                    s.endText();
                }
            }
            doc.save(target.toFile());
        }
        return target;
    }
}
