package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.ingestquarantine.parse.InProcessPdfParser;
import org.ingestquarantine.parse.ParsedDocument;
import org.ingestquarantine.pipeline.Settings;
import org.ingestquarantine.testsupport.LanguageFilter;
import org.ingestquarantine.testsupport.ShippedProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped language guess ({@code language-guess.*} in application.properties) names the language of the sample
 * set's English text, of German, Spanish and French sentences, and says {@code und} where no stopword list makes
 * the minimum share (a list of part numbers, an empty page).
 */
class LanguageGuessTest {

    @TempDir
    Path folder;

    private final LanguageGuess guess = LanguageGuess.configured(new Settings(ShippedProperties.lookup()));

    @Test
    void shouldGuessEachGeneratedPdfsLanguage() throws Exception {
        LanguageFilter.writeNonEnglish(folder);
        assertThat(guess.guess(parsed(folder.resolve("de.pdf")))).isEqualTo("de");
        assertThat(guess.guess(parsed(folder.resolve("es.pdf")))).isEqualTo("es");
    }

    @Test
    void shouldGuessEnglishForEachTextSample() throws Exception {
        for (String sample : List.of("01-text-one-page.pdf", "02-text-three-pages.pdf", "04-text-twelve-pages.pdf")) {
            assertThat(guess.guess(parsed(Path.of("samples", "pdfs", sample)))).as(sample).isEqualTo("en");
        }
    }

    @Test
    void shouldGuessGermanSpanishAndFrench() {
        assertThat(guess.guess(pages(List.of("Die Faehre faehrt am Dienstag nicht, weil das Wasser zu niedrig ist."))))
                .isEqualTo("de");
        assertThat(guess.guess(pages(List.of("El informe de la comision no esta terminado y se publica la semana que viene."))))
                .isEqualTo("es");
        assertThat(guess.guess(pages(List.of("Le rapport de la commune est pret et nous le publions dans la semaine."))))
                .isEqualTo("fr");
    }

    @Test
    void shouldSayUndeterminedWhereNoListMakesTheMinimumShare() {
        assertThat(guess.guess(pages(List.of("AX-1200 BX-3300 CX-4410 DX-5520 EX-6630 FX-7740 GX-8850 HX-9960 JX-0070 KX-1180"))))
                .isEqualTo(LanguageGuess.UNDETERMINED);
        assertThat(guess.guess(pages(List.of("")))).isEqualTo(LanguageGuess.UNDETERMINED);
    }

    private static ParsedDocument pages(List<String> texts) {
        return new ParsedDocument(texts.size(), texts, List.of(), false, "1.7");
    }

    private static ParsedDocument parsed(Path pdf) throws Exception {
        return new InProcessPdfParser().parse(pdf);
    }
}
