package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shared real-world corpus beside the repository ({@code ../shared/corpus}) and its manifest.
 */
public final class Corpus {

    /** The corpus folder, found from the working directory (the project root under Maven). */
    public static final Path ROOT = Path.of("..", "shared", "corpus").toAbsolutePath().normalize();
    /** The PDFs. */
    public static final Path PDFS = ROOT.resolve("pdfs");

    private Corpus() {
    }

    /**
     * @param name a file name such as {@code c0007.pdf}
     * @return its path
     */
    public static Path file(String name) {
        return PDFS.resolve(name);
    }

    /**
     * One manifest row.
     *
     * @param file file name
     * @param category the corpus category
     * @param expectedClass {@code indexed} or an error class; {@code a|b} allows either
     * @param expectedReason the expected reason code, may be empty
     */
    public record Row(String file, String category, String expectedClass, String expectedReason) {

        /** @return the acceptable outcomes */
        public List<String> acceptable() {
            return List.of(expectedClass.split("\\|"));
        }
    }

    /** @return MANIFEST.tsv rows by file name, in file order */
    public static Map<String, Row> manifest() {
        try {
            List<String> lines = Files.readAllLines(ROOT.resolve("MANIFEST.tsv"));
            List<String> header = List.of(lines.get(0).split("\t", -1));
            int file = header.indexOf("file");
            int category = header.indexOf("category");
            int expectedClass = header.indexOf("expected_class");
            int expectedReason = header.indexOf("expected_reason");
            Map<String, Row> rows = new LinkedHashMap<>();
            for (String line : lines.subList(1, lines.size())) {
                if (line.isBlank()) {
                    continue;
                }
                String[] c = line.split("\t", -1);
                rows.put(c[file], new Row(c[file], c[category], c[expectedClass], c[expectedReason]));
            }
            return rows;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the corpus manifest under " + ROOT, e);
        }
    }
}
