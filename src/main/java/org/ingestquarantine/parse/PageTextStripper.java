package org.ingestquarantine.parse;

import java.io.IOException;
import java.io.StringWriter;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.text.PDFTextStripper;

/**
 * Extracts text page by page in one pass, so a page that throws costs only its own text. Single use.
 */
final class PageTextStripper extends PDFTextStripper {

    private final Map<Integer, String> textByPage = new TreeMap<>();
    private final List<Integer> lostPages = new ArrayList<>();
    private Throwable firstFailure;

    /** The texts of all pages, the pages lost and the first page failure. */
    record Result(List<String> pageTexts, List<Integer> pagesLost, Throwable firstFailure) {
    }

    /**
     * @param pageCount the number of real pages, as found by {@link RealPages}
     * @throws IOException PDFBox failed outside any single page (for instance while walking the page tree)
     */
    static Result extract(PDDocument document, int pageCount) throws IOException {
        PageTextStripper stripper = new PageTextStripper();
        stripper.writeText(document, Writer.nullWriter());
        List<String> texts = new ArrayList<>(pageCount);
        for (int page = 1; page <= pageCount; page++) {
            texts.add(stripper.textByPage.getOrDefault(page, ""));
        }
        return new Result(texts, stripper.lostPages, stripper.firstFailure);
    }

    private PageTextStripper() {
    }

    /** Called by PDFTextStripper for each page with content; {@link #getCurrentPageNo()} is 1-based. */
    @Override
    public void processPage(PDPage page) throws IOException {
        int number = getCurrentPageNo();
        Writer documentOutput = output;
        StringWriter pageOutput = new StringWriter();
        output = pageOutput;
        try {
            super.processPage(page);
            textByPage.put(number, pageOutput.toString());
        } catch (IOException | RuntimeException | StackOverflowError e) {
            lostPages.add(number);
            if (firstFailure == null) {
                firstFailure = e;
            }
        } finally {
            output = documentOutput;
        }
    }
}
