package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures the sample set regenerates and that every sample has its stated outcome. */
class SampleSetTest {

    @TempDir
    Path folder;

    @Test
    void shouldGiveEverySampleItsStatedOutcome() throws Exception {
        SampleSet.write(folder);
        InProcessPdfParser parser = new InProcessPdfParser();
        assertThat(Files.list(folder).map(p -> p.getFileName().toString()).collect(Collectors.toSet()))
                .containsExactlyInAnyOrderElementsOf(SampleSet.SAMPLES.stream().map(SampleSet.Sample::fileName).toList());
        for (SampleSet.Sample sample : SampleSet.SAMPLES) {
            assertThat(Outcome.of(parser, folder.resolve(sample.fileName())))
                    .as(sample.fileName()).isEqualTo(sample.expected());
        }
    }

    @Test
    void shouldReportOwnerOnlyEncryptionAsEncryptedButReadable() throws Exception {
        SampleSet.write(folder);
        ParsedDocument document = new InProcessPdfParser().parse(folder.resolve("05-encrypted-owner-password-only.pdf"));
        assertThat(document.encrypted()).isTrue();
        assertThat(document.pageCount()).isEqualTo(2);
        assertThat(document.pageTexts().get(1)).contains("page 2 of 2");
    }

    @Test
    void shouldMatchTheCommittedSampleFolder() throws Exception {
        Path committed = Path.of("samples/pdfs");
        assertThat(committed).isDirectory();
        for (SampleSet.Sample sample : SampleSet.SAMPLES) {
            assertThat(Outcome.of(new InProcessPdfParser(), committed.resolve(sample.fileName())))
                    .as(sample.fileName()).isEqualTo(sample.expected());
        }
    }
}
