package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.ingestquarantine.testsupport.IngestRun;
import org.ingestquarantine.testsupport.LanguageFilter;
import org.ingestquarantine.testsupport.SqlCount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, the routes guide's language filter as written ({@code routes/examples/language-filter}) after the parse
 * step, through {@code ingest <folder>} in its own JVM on the embedded profile: the English samples are indexed, a
 * German and a Spanish text PDF skipped by policy (reason {@code language}) in the stage {@code language}, which the
 * attempt journal records; one outcome per message, no attempt left open, the summary's counts the database's, and no
 * document text in the output.
 */
class LanguageFilterIT {

    @TempDir
    Path tmp;

    @Test
    void shouldIndexTheEnglishAndSkipTheOthersInTheLanguageStage() throws Exception {
        Path folder = Files.createDirectories(tmp.resolve("docs"));
        Files.copy(Path.of("samples", "pdfs", "01-text-one-page.pdf"), folder.resolve("en-one.pdf"));
        Files.copy(Path.of("samples", "pdfs", "02-text-three-pages.pdf"), folder.resolve("en-three.pdf"));
        LanguageFilter.writeNonEnglish(folder);
        IngestRun run = IngestRun.of(LanguageFilter.editedRoutes(tmp), folder, "docs", tmp.resolve("data"),
                "language-filter-ingest.log");
        String output = run.output();
        assertThat(run.exitCode()).as("a skip is settled; output:%n%s", output).isZero();
        assertThat(output).as("no document text in the output").doesNotContain("Gemeinde", "informe", "river ferry");
        JsonNode summary = run.summary();
        assertThat(summary.get("documents").asInt()).isEqualTo(4);
        assertThat(summary.get("indexed").asInt()).isEqualTo(2);
        assertThat(summary.at("/skipped/" + LanguageFilter.REASON).asInt()).as("summary %s", summary).isEqualTo(2);
        assertThat(summary.get("abandoned")).isEmpty();
        assertThat(summary.get("unsettled")).isEmpty();

        try (IngestRun.SavedDatabase db = run.database()) {
            DataSource ds = db.dataSource();
            db.assertOneClosedAttemptPerMessage(summary);
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM documents WHERE source = 'docs' AND state = 'searchable'"))
                    .isEqualTo(summary.get("indexed").asLong());
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM attempt_journal WHERE doc_id IN ('de.pdf', 'es.pdf')"
                    + " AND outcome = 'skipped_by_policy' AND stage = ?", LanguageFilter.STAGE))
                    .as("skipped in the stage of its own").isEqualTo(2);
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM skipped_documents WHERE source = 'docs'"
                    + " AND doc_id IN ('de.pdf', 'es.pdf') AND reason = ?", LanguageFilter.REASON))
                    .isEqualTo(summary.at("/skipped/" + LanguageFilter.REASON).asLong());
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM quarantine")).isZero();
        }
    }
}
