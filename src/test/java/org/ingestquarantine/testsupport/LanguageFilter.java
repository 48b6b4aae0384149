package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The routes guide's "a new stage: a language filter" AS WRITTEN ({@code routes/examples/language-filter}), put where
 * the guide says (right after the parse step of process-document) in a copy of {@code routes/}, and a sample folder
 * with a German and a Spanish text PDF beside the shipped (English) samples.
 */
public final class LanguageFilter {

    /** The reason the guide's example gives. */
    public static final String REASON = "language";
    /** The stage the example adds. */
    public static final String STAGE = "language";

    private static final Path EXAMPLE = Path.of("routes", "examples", "language-filter", "language-step.yaml");
    private static final String AFTER_PARSE = "              - bean: { ref: parseStage, method: parse }\n";

    private LanguageFilter() {
    }

    /**
     * @param into a fresh folder; the copy is made in {@code <into>/routes}
     * @return a copy of routes/ with the guide's language step after parse
     * @throws IOException when the copy fails
     */
    public static RoutesCopy editedRoutes(Path into) throws IOException {
        String step = Files.readString(EXAMPLE);
        return RoutesCopy.of(into).edit("process-document.camel.yaml", y -> y.replace(AFTER_PARSE, AFTER_PARSE + step));
    }

    /**
     * @param folder a fresh folder
     * @return it, holding the shipped samples, {@code de.pdf} (German) and {@code es.pdf} (Spanish)
     * @throws IOException when it cannot be written
     */
    public static Path samples(Path folder) throws IOException {
        Files.createDirectories(folder);
        try (var files = Files.list(Path.of("samples", "pdfs"))) {
            for (Path f : files.toList()) {
                Files.copy(f, folder.resolve(f.getFileName()));
            }
        }
        writeNonEnglish(folder);
        return folder;
    }

    /**
     * @param folder where {@code de.pdf} and {@code es.pdf} go
     * @throws IOException when they cannot be written
     */
    public static void writeNonEnglish(Path folder) throws IOException {
        Files.write(folder.resolve("de.pdf"), TextPdf.of(
                "Der Bericht der Gemeinde ist noch nicht fertig und wird erst in der naechsten Woche erscheinen.",
                "Die Faehre faehrt am Dienstag nicht, weil das Wasser zu niedrig ist und der Hafen geschlossen bleibt."));
        Files.write(folder.resolve("es.pdf"), TextPdf.of(
                "El informe de la comision no esta terminado y se publica la semana que viene.",
                "Los horarios del transbordador cambian en primavera por las obras del puerto."));
    }
}
