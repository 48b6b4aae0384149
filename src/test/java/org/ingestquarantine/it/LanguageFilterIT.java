package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.LanguageFilter;
import org.ingestquarantine.testsupport.RoutesCopy;
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
        RoutesCopy routes = LanguageFilter.editedRoutes(tmp);
        Path data = tmp.resolve("data");
        Path log = ConsumerProcess.freshLog("language-filter-ingest.log");
        Map<String, String> p = new HashMap<>();
        p.put("db.port", Integer.toString(FreePort.find()));
        p.put("sqs.port", Integer.toString(FreePort.find()));
        p.put("parse.pool-size", "1");
        p.put("iq.routes-dir", routes.folder().toAbsolutePath().toString());
        p.put("iq.broker-configs-dir", Path.of("broker-configs").toAbsolutePath().toString());
        int exit;
        try (ConsumerProcess ingest = ConsumerProcess.command(List.of("ingest", folder.toString(), "--source", "docs",
                "--json", "--data-dir", data.toString()), p, Map.of(), log)) {
            exit = ingest.awaitExit(Duration.ofMinutes(5));
        }
        String output = Files.readString(log);
        assertThat(exit).as("a skip is settled; output:%n%s", output).isZero();
        assertThat(output).as("no document text in the output").doesNotContain("Gemeinde", "informe", "river ferry");
        JsonNode summary = new ObjectMapper().readTree(output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
                .orElseThrow());
        assertThat(summary.get("documents").asInt()).isEqualTo(4);
        assertThat(summary.get("indexed").asInt()).isEqualTo(2);
        assertThat(summary.at("/skipped/" + LanguageFilter.REASON).asInt()).as("summary %s", summary).isEqualTo(2);
        assertThat(summary.get("abandoned")).isEmpty();
        assertThat(summary.get("unsettled")).isEmpty();

        try (EmbeddedPostgresService saved = EmbeddedPostgresService.start(data.resolve("postgres"), 0);
             Database db = Database.open(saved.jdbcUrl(), saved.user(), saved.password())) {
            DataSource ds = db.dataSource();
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open").isZero();
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM attempt_journal")).as("one attempt per message").isEqualTo(4);
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM attempt_journal WHERE outcome = 'indexed'"))
                    .isEqualTo(summary.get("indexed").asLong());
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
