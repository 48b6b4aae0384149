package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.testsupport.Corpus;
import org.junit.jupiter.api.Test;

/**
 * Ensures every real-world file of the shared corpus gets the outcome its MANIFEST.tsv expects, through the
 * worker pool. The corpus lives beside the repository ({@link Corpus}).
 */
class WorkerPoolCorpusIT {

    /**
     * Rows where we believe the manifest's expected_reason is not the best answer, with our reason.
     * Each entry must still match its expected_class, and must produce exactly the reason given here.
     */
    static final Map<String, String> REASON_DISAGREEMENTS = Map.of(
            // 35000x35000 JBIG2 image (1.2e9 pixels): our parse.max-image-pixels limit (1e8) names the real
            // problem deterministically; the manifest says no_text_layer (also true). Both are permanent_input.
            "c0086.pdf", ParseLimitException.IMAGE_PIXEL_LIMIT);

    @Test
    void shouldGiveEveryCorpusFileItsExpectedOutcome() throws Exception {
        assumeTrue(Files.isDirectory(Corpus.PDFS), "corpus not found at " + Corpus.PDFS);
        List<Corpus.Row> rows = List.copyOf(Corpus.manifest().values());
        List<String> mismatches = new ArrayList<>();
        try (WorkerPoolParser pool = new WorkerPoolParser(ParseLimits.defaults())) {
            for (Corpus.Row row : rows) {
                String reason = Outcome.of(pool, Corpus.file(row.file()));
                String errorClass = errorClassOf(reason);
                String wantedReason = REASON_DISAGREEMENTS.getOrDefault(row.file(), row.expectedReason());
                boolean classOk = row.acceptable().contains(errorClass);
                boolean reasonOk = !errorClass.equals("permanent_input") || wantedReason.isEmpty() || wantedReason.equals(reason);
                if (!classOk || !reasonOk) {
                    mismatches.add(row.file() + ": expected " + row.acceptable() + "/" + wantedReason
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
