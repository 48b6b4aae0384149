package org.ingestquarantine.parse;

import java.nio.file.Path;

/**
 * Turns one PDF file into page texts, or says precisely why it cannot.
 *
 * <p>Implementations are thread-safe. {@link #close()} releases whatever the parser holds (worker
 * processes); a closed parser rejects further calls with {@link IllegalStateException}.
 */
public interface DocumentParser extends AutoCloseable {

    /**
     * @param pdf a readable local file; its content need not be a PDF
     * @return the page texts and facts about the document; at least one page has non-whitespace text
     * @throws NotPdfException the bytes are not a PDF, or the file is empty
     * @throws EncryptedPdfException a user password or a certificate is needed
     * @throws NoTextLayerException no page has any non-whitespace text
     * @throws PdfSyntaxException PDFBox failed at load, or on every page
     * @throws ParseLimitException a configured page, stream-size or image-size limit is exceeded
     * @throws ParserCrashedException the worker parsing it ran out of heap or time, or died
     */
    ParsedDocument parse(Path pdf) throws ParseException;

    /** Releases worker processes and other resources; idempotent. */
    @Override
    void close();
}
