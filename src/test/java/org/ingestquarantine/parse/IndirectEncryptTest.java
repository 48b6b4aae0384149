package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Ensures owner-password-only PDFs whose /Encrypt values are indirect objects open and give their text. */
class IndirectEncryptTest {

    @TempDir
    Path folder;

    @ParameterizedTest(name = "aes={0}")
    @ValueSource(booleans = {false, true})
    void shouldExtractTheTextOfAnOwnerOnlyPdfWithIndirectEncryptValues(boolean aes) throws Exception {
        Path file = folder.resolve(aes ? "aes128.pdf" : "rc4-128.pdf");
        IndirectEncryptPdfs.ownerOnly(file, aes, "Indirect encryption values are fine");
        String raw = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        assertThat(raw).as("the generated /Encrypt refers to its /O").containsPattern("/O \\d+ 0 R");

        ParsedDocument document = new InProcessPdfParser().parse(file);

        assertThat(document.pageTexts()).hasSize(1);
        assertThat(document.pageTexts().get(0)).contains("Indirect encryption values are fine");
    }
}
