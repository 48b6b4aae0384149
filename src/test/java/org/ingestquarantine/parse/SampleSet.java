package org.ingestquarantine.parse;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import javax.imageio.ImageIO;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDRectangle;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.apache.pdfbox.pdmodel.graphics.image.LosslessFactory;
import org.apache.pdfbox.pdmodel.graphics.image.PDImageXObject;

/**
 * Generates the sample PDFs of {@code samples/pdfs/} that the README's first command ingests: one file per
 * outcome the pipeline must handle. All text is generated here from neutral word lists.
 *
 * <p>Run {@code main} from the repository root to regenerate them (argument: target folder, default
 * {@code samples/pdfs}); {@code SampleSetTest} regenerates them into a temp folder and checks each outcome.
 */
public final class SampleSet {

    /** The outcome a sample must have: {@code indexed}, or the reason code of its ParseException. */
    public record Sample(String fileName, String expected) {
    }

    public static final String INDEXED = "indexed";

    public static final List<Sample> SAMPLES = List.of(
            new Sample("01-text-one-page.pdf", INDEXED),
            new Sample("02-text-three-pages.pdf", INDEXED),
            new Sample("03-text-seven-pages.pdf", INDEXED),
            new Sample("04-text-twelve-pages.pdf", INDEXED),
            new Sample("05-encrypted-owner-password-only.pdf", INDEXED),
            new Sample("06-encrypted-user-password.pdf", EncryptedPdfException.ENCRYPTED),
            new Sample("07-image-only-no-text-layer.pdf", NoTextLayerException.NO_TEXT_LAYER),
            new Sample("08-truncated.pdf", PdfSyntaxException.PARSE_ERROR),
            new Sample("09-not-pdf-html.pdf", NotPdfException.NOT_PDF),
            new Sample("10-not-pdf-png.pdf", NotPdfException.NOT_PDF),
            new Sample("11-empty.pdf", NotPdfException.EMPTY),
            new Sample("12-hostile-page-count-billions.pdf", INDEXED),
            new Sample("13-hostile-image-100000x100000.pdf", ParseLimitException.IMAGE_PIXEL_LIMIT));

    private static final String[] SUBJECTS = {"The harbour office", "A small committee", "The north garden",
        "Our weekly bulletin", "The library annex", "A delivery van", "The morning shift", "The river ferry"};
    private static final String[] VERBS = {"opens", "reviews", "receives", "prepares", "records", "repaints",
        "schedules", "inspects"};
    private static final String[] OBJECTS = {"the spring timetable", "twelve wooden crates", "a list of repairs",
        "the new signposts", "several parcels", "the visitor register", "two spare bicycles", "the budget notes"};
    private static final String[] ENDINGS = {"before noon.", "on Tuesdays.", "after the rain stops.",
        "every second week.", "without delay.", "at the usual time.", "near the east gate.", "in good order."};

    private SampleSet() {
    }

    public static void main(String[] args) throws IOException {
        Path target = Path.of(args.length > 0 ? args[0] : "samples/pdfs");
        write(target);
        System.out.println("wrote " + SAMPLES.size() + " samples to " + target.toAbsolutePath());
    }

    /** Writes every sample of {@link #SAMPLES} into {@code folder}, creating it if needed. */
    public static void write(Path folder) throws IOException {
        Files.createDirectories(folder);
        textDocument(folder.resolve("01-text-one-page.pdf"), 1, 1, null);
        textDocument(folder.resolve("02-text-three-pages.pdf"), 3, 2, null);
        textDocument(folder.resolve("03-text-seven-pages.pdf"), 7, 3, null);
        textDocument(folder.resolve("04-text-twelve-pages.pdf"), 12, 4, null);
        textDocument(folder.resolve("05-encrypted-owner-password-only.pdf"), 2, 5, policy("owner-secret", ""));
        textDocument(folder.resolve("06-encrypted-user-password.pdf"), 2, 6, policy("owner-secret", "user-secret"));
        imageOnly(folder.resolve("07-image-only-no-text-layer.pdf"));
        truncated(folder.resolve("08-truncated.pdf"));
        Files.writeString(folder.resolve("09-not-pdf-html.pdf"), "<!DOCTYPE html>\n<html><head><title>Moved</title></head>"
                + "<body><p>This notice has moved to a new address.</p></body></html>\n", StandardCharsets.UTF_8);
        ImageIO.write(drawing(), "png", folder.resolve("10-not-pdf-png.pdf").toFile());
        Files.write(folder.resolve("11-empty.pdf"), new byte[0]);
        HostilePdfs.pageCountBillions(folder.resolve("12-hostile-page-count-billions.pdf"));
        HostilePdfs.hugeImage(folder.resolve("13-hostile-image-100000x100000.pdf"), 100_000, 100_000);
    }

    /** A Helvetica document of {@code pages} pages, each with a title line and a dozen sentences. */
    static void textDocument(Path file, int pages, long seed, StandardProtectionPolicy protection) throws IOException {
        Files.write(file, textDocumentBytes(pages, seed, protection));
    }

    static byte[] textDocumentBytes(int pages, long seed, StandardProtectionPolicy protection) throws IOException {
        Random random = new Random(seed);
        try (PDDocument document = new PDDocument()) {
            PDType1Font font = new PDType1Font(Standard14Fonts.FontName.HELVETICA);
            for (int number = 1; number <= pages; number++) {
                PDPage page = new PDPage(PDRectangle.LETTER);
                document.addPage(page);
                try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                    content.beginText();
                    content.setFont(font, 11);
                    content.setLeading(15);
                    content.newLineAtOffset(72, 720);
                    content.showText("Sample notice " + seed + ", page " + number + " of " + pages);
                    content.newLine();
                    for (int line = 0; line < 12; line++) {
                        content.showText(sentence(random));
                        content.newLine();
                    }
                    content.endText();
                }
            }
            if (protection != null) {
                document.protect(protection);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            document.save(out);
            return out.toByteArray();
        }
    }

    static String sentence(Random random) {
        return pick(random, SUBJECTS) + " " + pick(random, VERBS) + " " + pick(random, OBJECTS) + " " + pick(random, ENDINGS);
    }

    private static String pick(Random random, String[] words) {
        return words[random.nextInt(words.length)];
    }

    private static StandardProtectionPolicy policy(String ownerPassword, String userPassword) {
        StandardProtectionPolicy policy = new StandardProtectionPolicy(ownerPassword, userPassword, new AccessPermission());
        policy.setEncryptionKeyLength(128);
        return policy;
    }

    /** One page holding a drawn picture and no text: what a scan without OCR looks like to a parser. */
    private static void imageOnly(Path file) throws IOException {
        try (PDDocument document = new PDDocument()) {
            PDPage page = new PDPage(PDRectangle.LETTER);
            document.addPage(page);
            PDImageXObject image = LosslessFactory.createFromImage(document, drawing());
            try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                content.drawImage(image, 72, 300, 468, 312);
            }
            document.save(file.toFile());
        }
    }

    /** A three-page text document cut after 55 % of its bytes, losing its xref and trailer. */
    private static void truncated(Path file) throws IOException {
        byte[] whole = textDocumentBytes(3, 8, null);
        Files.write(file, Arrays.copyOf(whole, whole.length * 55 / 100));
    }

    private static BufferedImage drawing() {
        BufferedImage image = new BufferedImage(600, 400, BufferedImage.TYPE_BYTE_GRAY);
        Graphics2D g = image.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, 600, 400);
        g.setColor(Color.DARK_GRAY);
        g.setStroke(new BasicStroke(6));
        List<int[]> boxes = new ArrayList<>(List.of(new int[] {40, 40, 200, 120}, new int[] {300, 80, 220, 200},
                new int[] {90, 220, 160, 140}));
        for (int[] box : boxes) {
            g.drawRect(box[0], box[1], box[2], box[3]);
        }
        g.drawOval(380, 300, 120, 60);
        g.drawLine(0, 399, 599, 0);
        g.dispose();
        return image;
    }
}
