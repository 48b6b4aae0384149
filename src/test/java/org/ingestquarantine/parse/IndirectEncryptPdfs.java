package org.ingestquarantine.parse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSBoolean;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSDocument;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSNumber;
import org.apache.pdfbox.cos.COSObject;
import org.apache.pdfbox.cos.COSString;
import org.apache.pdfbox.pdfwriter.compress.CompressParameters;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/**
 * Owner-password-only PDFs (empty user password) whose trailer's /Encrypt dictionary holds every value as an
 * indirect object, as some producers write them: PDFBox writes the encrypted file, then an incremental
 * update redefines the /Encrypt object with each value moved into an object of its own.
 */
public final class IndirectEncryptPdfs {

    private IndirectEncryptPdfs() {
    }

    /**
     * @param file where to write
     * @param aes AES-128 when true, else RC4-128
     * @param text the page's text
     * @throws IOException when it cannot be written
     */
    public static void ownerOnly(Path file, boolean aes, String text) throws IOException {
        byte[] encrypted = encryptedByPdfBox(aes, text);
        try (PDDocument doc = Loader.loadPDF(encrypted)) {
            COSDocument cos = doc.getDocument();
            COSDictionary trailer = cos.getTrailer();
            COSObject encryptRef = (COSObject) trailer.getItem(COSName.ENCRYPT);
            COSDictionary encrypt = (COSDictionary) encryptRef.getObject();
            long next = trailer.getLong(COSName.SIZE);
            Map<Long, String> objects = new LinkedHashMap<>();
            StringBuilder dict = new StringBuilder("<<");
            for (Map.Entry<COSName, COSBase> e : encrypt.entrySet()) {
                COSBase value = e.getValue() instanceof COSObject o ? o.getObject() : e.getValue();
                if (value instanceof COSDictionary) {
                    dict.append(' ').append(write(e.getKey())).append(' ').append(write(value));
                } else {
                    objects.put(next, write(value));
                    dict.append(' ').append(write(e.getKey())).append(' ').append(next).append(" 0 R");
                    next++;
                }
            }
            objects.put(encryptRef.getObjectNumber(), dict.append(" >>").toString());
            Files.write(file, appendUpdate(encrypted, objects, next, trailer));
        }
    }

    private static byte[] encryptedByPdfBox(boolean aes, String text) throws IOException {
        try (PDDocument doc = new PDDocument()) {
            PDPage page = new PDPage();
            doc.addPage(page);
            try (PDPageContentStream content = new PDPageContentStream(doc, page)) {
                content.beginText();
                content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                content.newLineAtOffset(72, 700);
                content.showText(text);
                content.endText();
            }
            StandardProtectionPolicy policy = new StandardProtectionPolicy("owner-secret", "", new AccessPermission());
            policy.setEncryptionKeyLength(128);
            policy.setPreferAES(aes);
            doc.protect(policy);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            doc.save(out, CompressParameters.NO_COMPRESSION);
            return out.toByteArray();
        }
    }

    /** Appends {@code objects} as an incremental update whose trailer points back to the original xref. */
    private static byte[] appendUpdate(byte[] original, Map<Long, String> objects, long size, COSDictionary trailer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(original);
        out.writeBytes(RawPdf.ascii("\n"));
        StringBuilder xref = new StringBuilder("xref\n");
        Map<Long, Integer> offsets = new LinkedHashMap<>();
        for (Map.Entry<Long, String> o : objects.entrySet()) {
            offsets.put(o.getKey(), out.size());
            out.writeBytes(RawPdf.ascii(o.getKey() + " 0 obj\n" + o.getValue() + "\nendobj\n"));
        }
        int xrefOffset = out.size();
        offsets.forEach((n, at) -> xref.append(n).append(" 1\n").append(String.format("%010d 00000 n \n", at)));
        String prev = lastStartXref(original);
        xref.append("trailer\n<< /Size ").append(size)
                .append(" /Root ").append(((COSObject) trailer.getItem(COSName.ROOT)).getObjectNumber()).append(" 0 R")
                .append(" /Encrypt ").append(((COSObject) trailer.getItem(COSName.ENCRYPT)).getObjectNumber()).append(" 0 R")
                .append(" /ID ").append(write(trailer.getDictionaryObject(COSName.ID)))
                .append(" /Prev ").append(prev).append(" >>\nstartxref\n").append(xrefOffset).append("\n%%EOF\n");
        out.writeBytes(RawPdf.ascii(xref.toString()));
        return out.toByteArray();
    }

    private static String lastStartXref(byte[] pdf) {
        String s = new String(pdf, StandardCharsets.ISO_8859_1);
        int at = s.lastIndexOf("startxref");
        return s.substring(at + "startxref".length()).trim().split("\\s+")[0];
    }

    private static String write(COSBase value) {
        if (value instanceof COSName n) {
            return "/" + n.getName();
        }
        if (value instanceof COSString s) {
            return "<" + HexFormat.of().formatHex(s.getBytes()) + ">";
        }
        if (value instanceof COSNumber n) {
            return number(n);
        }
        if (value instanceof COSBoolean b) {
            return Boolean.toString(b.getValue());
        }
        if (value instanceof COSArray a) {
            StringBuilder sb = new StringBuilder("[");
            a.forEach(v -> sb.append(' ').append(write(v instanceof COSObject o ? o.getObject() : v)));
            return sb.append(" ]").toString();
        }
        if (value instanceof COSDictionary d) {
            StringBuilder sb = new StringBuilder("<<");
            d.entrySet().forEach(e -> sb.append(' ').append(write(e.getKey())).append(' ').append(write(e.getValue())));
            return sb.append(" >>").toString();
        }
        throw new IllegalArgumentException("cannot write " + value);
    }

    private static String number(COSNumber n) {
        return n instanceof org.apache.pdfbox.cos.COSInteger i ? Long.toString(i.longValue()) : Float.toString(n.floatValue());
    }
}
