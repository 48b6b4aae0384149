package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.pipeline.IngestMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the HEAD's two refusals, an empty document and one over {@code ingest.max-bytes}, thrown by one check in
 * one place, are two cohorts: their fingerprints differ, while two empty documents share one.
 */
class PreflightFingerprintTest {

    @TempDir
    Path folder;

    @Test
    void shouldFingerprintEmptyAndTooLargeApart() throws Exception {
        Files.write(folder.resolve("empty-1.pdf"), new byte[0]);
        Files.write(folder.resolve("empty-2.pdf"), new byte[0]);
        Files.write(folder.resolve("large.pdf"), new byte[64]);
        Properties p = new Properties();
        p.setProperty("sources.docs.file-roots", folder.toString());
        Preflight preflight = new Preflight(Map.of("file", new FolderConnector(Duration.ofSeconds(5))),
                SourceAccess.fromProperties(p), 10);

        HeadRefusalException empty1 = refusal(preflight, "empty-1.pdf");
        HeadRefusalException empty2 = refusal(preflight, "empty-2.pdf");
        HeadRefusalException large = refusal(preflight, "large.pdf");

        assertThat(empty1.reasonCode()).isEqualTo("empty");
        assertThat(large.reasonCode()).isEqualTo("too_large");
        assertThat(ErrorFingerprint.of(empty1)).isEqualTo(ErrorFingerprint.of(empty2));
        assertThat(ErrorFingerprint.of(large)).as("too_large is not the empty cohort")
                .isNotEqualTo(ErrorFingerprint.of(empty1));
    }

    private HeadRefusalException refusal(Preflight preflight, String name) {
        Path file = folder.resolve(name);
        Throwable t = catchThrowable(() -> preflight.check(new IngestMessage("docs", name, file.toUri(), null, null,
                null)));
        assertThat(t).isInstanceOf(HeadRefusalException.class);
        return (HeadRefusalException) t;
    }
}
