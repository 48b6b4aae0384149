package org.ingestquarantine.parse;

import java.util.List;

/**
 * The text of a successfully parsed PDF.
 *
 * @param pageCount the number of real pages found by walking the page tree (never the declared
 *     {@code /Count}); equals {@code pageTexts.size()}
 * @param pageTexts the extracted text of each page, in page order; a lost page has an empty string
 * @param pagesLost 1-based numbers of pages whose extraction threw; their text is missing, the others'
 *     is not; empty when every page was read
 * @param encrypted {@code true} when the file is encrypted with an empty user password (owner-only)
 * @param pdfVersion the version PDFBox reports for the document, e.g. {@code "1.7"}
 */
public record ParsedDocument(int pageCount, List<String> pageTexts, List<Integer> pagesLost,
        boolean encrypted, String pdfVersion) {

    public ParsedDocument {
        pageTexts = List.copyOf(pageTexts);
        pagesLost = List.copyOf(pagesLost);
        if (pageTexts.size() != pageCount) {
            throw new IllegalArgumentException("pageTexts has " + pageTexts.size() + " entries for " + pageCount + " pages");
        }
    }

    /** @return the number of non-whitespace characters over all pages */
    public long nonWhitespaceChars() {
        return pageTexts.stream().mapToLong(ParsedDocument::nonWhitespace).sum();
    }

    static long nonWhitespace(String text) {
        return text.codePoints().filter(c -> !Character.isWhitespace(c) && !Character.isSpaceChar(c)).count();
    }
}
