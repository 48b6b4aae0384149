package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.cli.IngestQuarantineCli;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.testsupport.Scrape;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a source fed through run (messages on the embedded SQS queue, no ingest command) gets its total by
 * listing on run's schedule ({@code sources.count-interval-ms}), and that {@code coverage}, the API the page reads
 * and the {@code coverage_ratio} gauge then show the same figure, counting the files no message brought; a file
 * added to the folder is counted by the next listing.
 */
class ListedCoverageIT {

    private static final Duration WAIT = Duration.ofSeconds(240);
    private static final Path GOOD = Path.of("samples/pdfs/01-text-one-page.pdf");
    private static final Path NOT_PDF = Path.of("samples/pdfs/09-not-pdf-html.pdf");
    private static final String TOKEN = "listed-coverage-token";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void shouldShowTheSameListedCoverageInTheCommandTheApiAndTheGauge() throws Exception {
        // six files: two good PDFs and one that is not a PDF are published; three never are (unseen)
        Path feed = Files.createDirectories(tmp.resolve("feed/2026"));
        Files.copy(GOOD, feed.resolve("good-1.pdf"));
        Files.copy(GOOD, feed.resolve("good-2.pdf"));
        Files.copy(NOT_PDF, feed.resolve("html.pdf"));
        for (int i = 1; i <= 3; i++) {
            Files.copy(GOOD, feed.resolve("unpublished-" + i + ".pdf"));
        }
        Map<String, String> p = new HashMap<>();
        p.put("sources.feed.file-roots", tmp.resolve("feed").toString());
        p.put(AppConfiguration.LIST_SOURCES, "true"); // as the run command sets it
        p.put("sources.count-interval-ms", "300");
        p.put("metrics.store-poll-ms", "200");
        p.put(AppConfiguration.SERVE_OPERATOR_API, "true");
        p.put("operator.api-token", TOKEN);
        p.put("operator.api-port", "0");
        try (TestPipeline pipeline = TestPipeline.start(Files.createDirectories(tmp.resolve("data")), p)) {
            for (String name : new String[] {"good-1.pdf", "good-2.pdf", "html.pdf"}) {
                String key = pipeline.publishFile("feed", "2026/" + name, feed.resolve(name));
                assertThat(pipeline.awaitOutcome(key, WAIT)).isIn("indexed", "quarantined");
            }
            double expected = 2.0 / 6;
            // the gauges are polled (metrics.store-poll-ms): wait for a reading that saw every outcome and the listing
            await().atMost(WAIT).until(() -> gauge(pipeline) == expected);
            JsonNode api = apiCoverage(pipeline);
            assertThat(api.get("total").asLong()).isEqualTo(6);
            assertThat(api.get("total_by").asText()).isEqualTo("listed");
            assertThat(api.get("unseen").asLong()).isEqualTo(3);
            assertThat(api.get("coverage").asDouble()).as("API (the page's figure) = gauge").isEqualTo(expected);

            EmbeddedPostgresService pg = pipeline.postgres();
            Map<String, String> db = Map.of("db.mode", "external", "db.url", pg.jdbcUrl(), "db.user", pg.user(),
                    "db.password", pg.password());
            db.forEach(System::setProperty);
            try {
                Path operator = Files.createDirectories(tmp.resolve("operator"));
                JsonNode cli = row(JSON.readTree(cli("coverage", "--json", "--data-dir", operator.toString())));
                assertThat(cli.get("coverage").asDouble()).as("coverage --json = gauge").isEqualTo(expected);
                assertThat(cli.get("total_by").asText()).isEqualTo("listed");
                // indexed, open, unindexable, erased, skipped, unseen, documents (the denominator), coverage
                assertThat(cli("coverage", "--data-dir", operator.toString()))
                        .containsPattern("feed\\s+6\\s+listed\\s+\\S+\\s+2\\s+1\\s+0\\s+0\\s+0\\s+3\\s+6\\s+33\\.3%");

                // a file dropped into the folder is counted by run's next listing, everywhere alike
                Files.copy(GOOD, feed.resolve("late.pdf"));
                await().atMost(WAIT).until(() -> gauge(pipeline) == 2.0 / 7);
                assertThat(row(JSON.readTree(cli("coverage", "--json", "--data-dir", operator.toString())))
                        .get("coverage").asDouble()).isEqualTo(2.0 / 7);
                assertThat(apiCoverage(pipeline).get("coverage").asDouble()).isEqualTo(2.0 / 7);
            } finally {
                db.keySet().forEach(System::clearProperty);
            }
        }
    }

    private static double gauge(TestPipeline pipeline) throws Exception {
        Scrape s = Scrape.of(URI.create(pipeline.app().bean(AppConfiguration.SCRAPE_URL, String.class)),
                Duration.ofSeconds(5));
        return s.has("coverage_ratio", Map.of("source", "feed")) ? s.sum("coverage_ratio", Map.of("source", "feed"))
                : Double.NaN;
    }

    private static JsonNode apiCoverage(TestPipeline pipeline) throws Exception {
        String page = pipeline.app().bean(AppConfiguration.OPERATOR_PAGE_URL, String.class);
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(page + "api/coverage"))
                .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return row(JSON.readTree(r.body()));
    }

    private static JsonNode row(JsonNode coverage) {
        for (JsonNode row : coverage.get("sources")) {
            if (row.get("source").asText().equals("feed")) {
                return row;
            }
        }
        throw new AssertionError("no coverage row for feed: " + coverage);
    }

    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = IngestQuarantineCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
        assertThat(code).as(err.toString()).isZero();
        return out.toString();
    }
}
