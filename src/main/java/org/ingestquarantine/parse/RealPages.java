package org.ingestquarantine.parse;

import java.util.ArrayList;
import java.util.List;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;

/**
 * Collects the pages a document really has by walking its page tree, never trusting the declared
 * {@code /Count} (a 794-byte file can claim 1,410,065,407 pages). PDFBox's walk skips nodes it has
 * already visited, so loops in {@code /Kids} end.
 */
final class RealPages {

    private RealPages() {
    }

    /**
     * @return the pages in order
     * @throws ParseLimitException reason {@code page_limit} when there are more than {@code maxPages}
     */
    static List<PDPage> of(PDDocument document, int maxPages) throws ParseLimitException {
        List<PDPage> pages = new ArrayList<>();
        for (PDPage page : document.getPages()) {
            if (pages.size() == maxPages) {
                throw ParseLimitException.pages(maxPages);
            }
            pages.add(page);
        }
        return pages;
    }
}
