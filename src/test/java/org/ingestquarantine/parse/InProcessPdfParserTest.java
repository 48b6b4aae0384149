package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the in-process parse logic: page-by-page salvage, limits, encryption from the trailer. */
class InProcessPdfParserTest {

    /** A content stream that PDFBox rejects while extracting text: an inline image without ID. */
    private static final String BROKEN_CONTENT = "BT /F1 12 Tf 72 720 Td (Never seen) Tj ET BI /W 1 /H 1 /BPC 8 /CS /G In ( ";

    @TempDir
    Path folder;

    private final InProcessPdfParser parser = new InProcessPdfParser();

    @Test
    void shouldKeepTheOtherPagesWhenOnePageThrows() throws Exception {
        Path file = folder.resolve("one-bad-page.pdf");
        threePages("Alpha page", BROKEN_CONTENT, "Gamma page").write(file, 1, "");
        ParsedDocument document = parser.parse(file);
        assertThat(document.pageCount()).isEqualTo(3);
        assertThat(document.pagesLost()).containsExactly(2);
        assertThat(document.pageTexts().get(0)).contains("Alpha page");
        assertThat(document.pageTexts().get(1)).isEmpty();
        assertThat(document.pageTexts().get(2)).contains("Gamma page");
    }

    @Test
    void shouldReportASyntaxErrorWhenEveryPageThrows() throws Exception {
        Path file = folder.resolve("all-bad.pdf");
        threePages(BROKEN_CONTENT, BROKEN_CONTENT, BROKEN_CONTENT).write(file, 1, "");
        PdfSyntaxException e = catchThrowableOfType(PdfSyntaxException.class, () -> parser.parse(file));
        assertThat(e.reasonCode()).isEqualTo("parse_error");
        assertThat(e.stage()).isEqualTo("parse");
        assertThat(e.getCause()).isNotNull();
        assertThat(e.getMessage()).doesNotContain("Never seen");
    }

    @Test
    void shouldCallNoTextAfterAProblemPdfboxOnlyLoggedAParseErrorNotAScan() throws Exception {
        // deep-pages.pdf: a page-tree loop skipped with an error in PDFBox's log; large-inline-image.pdf: an inline
        // image cut short with a warning. Neither threw, neither yielded text: damaged, not in need of OCR
        for (String name : new String[] {"c0097.pdf", "c0116.pdf"}) {
            PdfSyntaxException e = catchThrowableOfType(PdfSyntaxException.class,
                    () -> parser.parse(org.ingestquarantine.testsupport.Corpus.file(name)));
            assertThat(e).as(name).isNotNull();
            assertThat(e.reasonCode()).isEqualTo("parse_error");
            assertThat(e.getMessage()).contains("PDFBox reported").doesNotContain("OCR");
        }
        // an image-only scan PDFBox reads without complaint still needs OCR
        assertThat(catchThrowableOfType(NoTextLayerException.class,
                () -> parser.parse(org.ingestquarantine.testsupport.Corpus.file("c0008.pdf")))).isNotNull();
    }

    @Test
    void shouldEnforceThePageLimitOnRealPages() throws Exception {
        Path file = folder.resolve("four.pdf");
        HostilePdfs.manyPages(file, 4);
        assertThat(new InProcessPdfParser(ParseLimits.defaults().withMaxPages(4)).parse(file).pageCount()).isEqualTo(4);
        ParseLimitException e = catchThrowableOfType(ParseLimitException.class,
                () -> new InProcessPdfParser(ParseLimits.defaults().withMaxPages(3)).parse(file));
        assertThat(e.reasonCode()).isEqualTo("page_limit");
        assertThat(e.limitName()).isEqualTo("parse.max-pages");
        assertThat(e.limitValue()).isEqualTo(3);
    }

    @Test
    void shouldStopDecodingAtTheStreamByteLimit() throws Exception {
        Path file = folder.resolve("bomb.pdf");
        HostilePdfs.nestedFlateBomb(file, 64L << 20);
        ParseLimitException e = catchThrowableOfType(ParseLimitException.class,
                () -> new InProcessPdfParser(ParseLimits.defaults().withMaxStreamBytes(8L << 20)).parse(file));
        assertThat(e.reasonCode()).isEqualTo("stream_bytes_limit");
        assertThat(e.limitValue()).isEqualTo(8L << 20);
    }

    @Test
    void shouldRecogniseCertificateEncryptionFromTheTrailer() throws Exception {
        Path file = folder.resolve("pubsec.pdf");
        RawPdf pdf = threePages("a", "b", "c");
        int encrypt = pdf.add("<< /Filter /Adobe.PubSec /SubFilter /adbe.pkcs7.s5 /V 4 /R 4 /Length 128"
                + " /CF << /DefaultCryptFilter << /CFM /AESV2 /Recipients [<3082>] >> >>"
                + " /StmF /DefaultCryptFilter /StrF /DefaultCryptFilter >>");
        pdf.write(file, 1, "/Encrypt " + encrypt + " 0 R /ID [<0102> <0102>]");
        EncryptedPdfException e = catchThrowableOfType(EncryptedPdfException.class, () -> parser.parse(file));
        assertThat(e.reasonCode()).isEqualTo("encrypted");
        assertThat(e.getMessage()).contains("Adobe.PubSec");
    }

    @Test
    void shouldTellEmptyFromNotPdfAndAcceptAHeaderWithoutDash() throws Exception {
        Path empty = Files.write(folder.resolve("empty.pdf"), new byte[0]);
        Path text = Files.writeString(folder.resolve("notes.pdf"), "plain words, nothing else\n");
        Path noDash = folder.resolve("nodash.pdf");
        RawPdf pdf = threePages("Header without dash", "x", "y").header("%PDF1.4");
        pdf.write(noDash, 1, "");
        assertThat(Outcome.of(parser, empty)).isEqualTo("empty");
        assertThat(Outcome.of(parser, text)).isEqualTo("not_pdf");
        assertThat(Outcome.of(parser, noDash)).isEqualTo("indexed");
    }

    @Test
    void shouldNameThePdfboxVersionInTheParserVersion() {
        assertThat(ParserVersion.CURRENT).matches("pdfbox-3\\.0\\.6\\+iq-parse-\\d+");
    }

    private static RawPdf threePages(String first, String second, String third) {
        RawPdf pdf = new RawPdf();
        pdf.add("<< /Type /Catalog /Pages 2 0 R >>");
        pdf.add("<< /Type /Pages /Kids [4 0 R 5 0 R 6 0 R] /Count 3 >>");
        pdf.add(RawPdf.helvetica());
        String[] contents = {first, second, third};
        for (int i = 0; i < 3; i++) {
            pdf.add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents "
                    + (7 + i) + " 0 R >>");
        }
        for (String content : contents) {
            pdf.addStream("", RawPdf.ascii(content.startsWith("BT") ? content : "BT /F1 12 Tf 72 720 Td (" + content + ") Tj ET"));
        }
        return pdf;
    }
}
