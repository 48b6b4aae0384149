package org.ingestquarantine.parse;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSObject;
import org.apache.pdfbox.io.IOUtils;
import org.apache.pdfbox.io.MemoryUsageSetting;
import org.apache.pdfbox.io.RandomAccessRead;
import org.apache.pdfbox.io.RandomAccessReadBufferedFile;
import org.apache.pdfbox.io.RandomAccessStreamCache.StreamCacheCreateFunction;
import org.apache.pdfbox.pdfparser.PDFParser;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException;

/**
 * Loads a PDF with PDFBox, with an empty user password and a stream cache that spills to temp files, and
 * turns load failures into our exceptions. Encryption by certificate is recognised from the trailer's
 * {@code /Encrypt /Filter} before PDFBox reaches for the optional BouncyCastle classes.
 */
final class PdfOpener {

    private static final String STANDARD_SECURITY_HANDLER = "Standard";

    private PdfOpener() {
    }

    /**
     * @return the loaded document; the caller closes it
     * @throws EncryptedPdfException a user password or certificate is needed
     * @throws PdfSyntaxException PDFBox could not load the file
     */
    static PDDocument open(Path file, long scratchMemoryBytes) throws ParseException {
        RandomAccessRead source;
        try {
            source = new RandomAccessReadBufferedFile(file.toFile());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot read " + file, e);
        }
        try {
            return new TrailerCheckingParser(source, streamCache(scratchMemoryBytes)).parse();
        } catch (InvalidPasswordException e) {
            IOUtils.closeQuietly(source);
            throw new EncryptedPdfException("the document needs a user password", e);
        } catch (CertificateEncryptionException e) {
            IOUtils.closeQuietly(source);
            throw new EncryptedPdfException("the document is encrypted for certificate holders (security handler "
                    + e.getMessage() + ")", e);
        } catch (IOException | RuntimeException | StackOverflowError | LinkageError e) {
            IOUtils.closeQuietly(source);
            throw new PdfSyntaxException("PDFBox could not load the document", e);
        }
    }

    private static StreamCacheCreateFunction streamCache(long scratchMemoryBytes) {
        MemoryUsageSetting setting = scratchMemoryBytes == 0
                ? MemoryUsageSetting.setupTempFileOnly()
                : MemoryUsageSetting.setupMixed(scratchMemoryBytes);
        return setting.streamCache;
    }

    /** Stops the load when the trailer names a security handler other than the password-based one. */
    private static final class TrailerCheckingParser extends PDFParser {

        TrailerCheckingParser(RandomAccessRead source, StreamCacheCreateFunction cache) throws IOException {
            super(source, "", null, null, cache);
        }

        @Override
        protected void prepareDecryption() throws IOException {
            COSDictionary encrypt = document.getEncryptionDictionary();
            if (encrypt != null) {
                inlineIndirectValues(encrypt);
                String handler = encrypt.getNameAsString(COSName.FILTER);
                if (handler != null && !STANDARD_SECURITY_HANDLER.equals(handler)) {
                    throw new CertificateEncryptionException(handler);
                }
            }
            super.prepareDecryption();
        }
    }

    /**
     * Replaces each indirect value of the /Encrypt dictionary (/O, /U, /P, /V, /R, /Length, /Filter, ...) by the
     * object it points to, read now, before a security handler exists: the dictionary's strings are never
     * encrypted (ISO 32000-1, 7.6.1), but PDFBox 3.0.6 reads indirect ones later through its decrypting
     * parser and fails inside the security handler.
     */
    private static void inlineIndirectValues(COSDictionary encrypt) {
        for (COSName key : List.copyOf(encrypt.keySet())) {
            if (encrypt.getItem(key) instanceof COSObject indirect) {
                encrypt.setItem(key, indirect.getObject());
            }
        }
    }

    /** The trailer's /Encrypt names a non-password security handler, e.g. Adobe.PubSec; message = its name. */
    static final class CertificateEncryptionException extends IOException {
        CertificateEncryptionException(String handler) {
            super(handler);
        }
    }
}
