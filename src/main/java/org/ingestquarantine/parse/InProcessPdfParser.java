package org.ingestquarantine.parse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.apache.pdfbox.io.IOUtils;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;

/**
 * Parses a PDF in the calling JVM. This is the parse logic itself; {@link WorkerPoolParser} runs it in
 * child JVMs so that heap and time can be bounded from outside.
 *
 * <p>Order of checks: magic bytes ({@link NotPdfException}), load with an empty user password and a
 * temp-file stream cache ({@link EncryptedPdfException}, {@link PdfSyntaxException}), real page count
 * against {@code maxPages}, stream sizes and image sizes ({@link ParseLimitException}), then text page by
 * page ({@link PdfSyntaxException} if every page with content threw and no text was found, or if no text was
 * found and PDFBox reported problems in its log ({@link PdfBoxProblems}); {@link NoTextLayerException} if no page
 * has non-whitespace text and PDFBox read the file without complaint). It bounds neither heap nor time:
 * an {@link OutOfMemoryError} propagates. Only {@code maxPages}, {@code maxStreamBytes},
 * {@code maxImagePixels} and {@code scratchMemoryBytes} of the limits apply here.
 *
 * <p>Thread-safe: it holds no state between calls.
 */
public final class InProcessPdfParser implements DocumentParser {

    private final ParseLimits limits;

    /** @param limits the limits; see the class comment for the ones that apply in-process */
    public InProcessPdfParser(ParseLimits limits) {
        this.limits = Objects.requireNonNull(limits, "limits");
    }

    /** A parser with {@link ParseLimits#defaults()}. */
    public InProcessPdfParser() {
        this(ParseLimits.defaults());
    }

    /**
     * {@inheritDoc}
     *
     * <p>Never throws {@link ParserCrashedException}.
     *
     * @throws UncheckedIOException the file cannot be read at all (missing, no permission)
     */
    @Override
    public ParsedDocument parse(Path pdf) throws ParseException {
        return parseFile(pdf);
    }

    /**
     * Keeps every exception we create at least three frames inside this class, so that its fingerprint
     * (type and top three frames) does not depend on who called the parser: a worker or the pipeline.
     */
    private ParsedDocument parseFile(Path pdf) throws ParseException {
        try {
            PdfSignature.check(pdf);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + pdf, e);
        }
        try (PdfBoxProblems problems = PdfBoxProblems.watch()) {
            PDDocument document = PdfOpener.open(pdf, limits.scratchMemoryBytes());
            try {
                return read(document, problems);
            } finally {
                IOUtils.closeQuietly(document);
            }
        }
    }

    private ParsedDocument read(PDDocument document, PdfBoxProblems problems) throws ParseException {
        PageTextStripper.Result text;
        List<PDPage> pages;
        try {
            pages = RealPages.of(document, limits.maxPages());
            new ContentLimitScanner(limits.maxStreamBytes(), limits.maxImagePixels()).scan(pages);
            text = PageTextStripper.extract(document, pages.size());
        } catch (IOException | RuntimeException | StackOverflowError e) {
            throw new PdfSyntaxException("PDFBox failed while reading the pages", e);
        }
        ParsedDocument parsed = new ParsedDocument(pages.size(), text.pageTexts(), text.pagesLost(),
                document.isEncrypted(), Float.toString(document.getVersion()));
        if (parsed.nonWhitespaceChars() > 0) {
            return parsed;
        }
        if (!text.pagesLost().isEmpty()) {
            throw new PdfSyntaxException("text extraction failed on " + text.pagesLost().size() + " of "
                    + pages.size() + " pages and the others have no text", text.firstFailure());
        }
        if (problems.count() > 0) {
            // a damaged file PDFBox recovered from silently (a page-tree loop skipped, an inline image cut short),
            // not a scan that needs OCR
            throw new PdfSyntaxException("PDFBox reported " + problems.count() + " problem(s) while reading the document"
                    + " and found no text in it", null);
        }
        throw NoTextLayerException.of(pages.size());
    }

    @Override
    public void close() {
        // nothing held between calls
    }
}
