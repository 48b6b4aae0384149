package org.ingestquarantine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.testsupport.Scrape;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures every metric the alert rules and the Grafana dashboard use is one the running application exports, in
 * seed 003's state (an overdue record, never drained) and on a healthy day (a drain yesterday, nothing overdue), and
 * that the running application serves the operator page and API beside the consumer, as {@code run} does.
 */
class ExportedNamesIT {

    private static final Duration WAIT = Duration.ofSeconds(180);
    private static final String PAGE_TOKEN = "names-page-token";
    private static final Path DASHBOARD = Path.of("monitoring", "grafana", "ingest-quarantine.json");
    /** PromQL words that are not metric names: operators, modifiers and aggregation clauses. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "bool");
    private static final Pattern NAME = Pattern.compile("(?<![\\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*+(?!\\s*\\()");

    @TempDir
    Path data;

    @Test
    void shouldExportEveryMetricTheRulesAndTheDashboardUse() throws Exception {
        // a chunk far over the model's token limit makes a long document a downstream_contract quarantine
        // served as `run` serves it: the operator page and API beside the consumer (checked at the end)
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of("metrics.store-poll-ms", "200",
                "chunk.max-tokens", "100000", "chunk.max-chars", "20000", AppConfiguration.SERVE_OPERATOR_API, "true",
                "operator.api-port", "0", "operator.api-token", PAGE_TOKEN))) {
            // a known total, so that the source has a coverage ratio
            new org.ingestquarantine.ingest.SourceTotals(pipeline.dataSource(), java.time.Clock.systemUTC())
                    .record("names", 2, "test", null);
            String indexed = pipeline.publishFile("names", "one-page.pdf", Path.of("samples/pdfs/01-text-one-page.pdf"));
            String quarantined = pipeline.publishFile("names", "twelve.pdf", Path.of("samples/pdfs/04-text-twelve-pages.pdf"));
            assertThat(pipeline.awaitOutcome(indexed, WAIT)).isEqualTo("indexed");
            assertThat(pipeline.awaitOutcome(quarantined, WAIT)).isEqualTo("quarantined");
            JdbcTemplate jdbc = new JdbcTemplate(pipeline.dataSource());
            URI url = URI.create(pipeline.app().bean(AppConfiguration.SCRAPE_URL, String.class));
            Set<String> used = new TreeSet<>(usedByRules());
            used.addAll(usedByDashboard());
            assertThat(used).as("names found in the rules and the dashboard").contains("ingest_quarantined_total",
                    "quarantine_oldest_open_age_seconds", "coverage_ratio", "ingest_downstream_contract_total",
                    "drain_last_run_age_seconds", "quarantine_overdue_documents", "camel_exchanges_total",
                    "ingest_pipeline_fault_held");
            assertRouteFaultSeries(pipeline, url);

            // seed 003's state: the record open for 100 days (overdue), no drain ever run (no drain_runs row): the
            // no-drain age exists all the same, the oldest open record's
            jdbc.update("UPDATE quarantine SET first_seen_at = now() - interval '100 days'");
            await().atMost(WAIT).untilAsserted(() -> {
                Scrape scrape = Scrape.of(url, Duration.ofSeconds(5));
                assertThat(scrape.names()).as("exported metric names, seed 003's state").containsAll(used);
                assertThat(scrape.sum("drain_last_run_age_seconds", Map.of())).as("never drained")
                        .isGreaterThan(99 * 24 * 3600.0);
                assertThat(scrape.sum("quarantine_overdue_documents", Map.of("owner", "unowned"))).isEqualTo(1);
            });

            // a healthy day: the record a day old, a drain that attempted something yesterday
            jdbc.update("UPDATE quarantine SET first_seen_at = now() - interval '1 day'");
            jdbc.update("INSERT INTO drain_runs (run_id, started_by, started_at, finished_at, status, error_fingerprint,"
                    + " limit_documents, rate_per_s, cohort_documents, selected) VALUES ('01HZZZZZZZZZZZZZZZZZZZZZZZ',"
                    + " 'test', now() - interval '1 day', now() - interval '1 day', 'finished', 'fp', 1, 1, 1, 1)");
            await().atMost(WAIT).untilAsserted(() -> {
                Scrape scrape = Scrape.of(url, Duration.ofSeconds(5));
                assertThat(scrape.names()).as("exported metric names, a healthy day").containsAll(used);
                assertThat(scrape.sum("drain_last_run_age_seconds", Map.of())).isLessThan(2 * 24 * 3600.0);
                assertThat(scrape.sum("quarantine_overdue_documents", Map.of("owner", "unowned"))).isZero();
            });

            URI page = URI.create(pipeline.app().bean(AppConfiguration.OPERATOR_PAGE_URL, String.class));
            assertThat(page.getHost()).isEqualTo("127.0.0.1");
            HttpClient http = HttpClient.newHttpClient();
            assertThat(http.send(HttpRequest.newBuilder(page).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .contains("<script src=\"/page.js\"");
            HttpResponse<String> coverage = http.send(HttpRequest.newBuilder(page.resolve("/api/coverage"))
                    .header("Authorization", "Bearer " + PAGE_TOKEN).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(coverage.statusCode()).isEqualTo(200);
            assertThat(coverage.body()).contains("\"source\":\"names\"");
            assertThat(http.send(HttpRequest.newBuilder(page.resolve("/api/coverage")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        }
    }

    /**
     * The route-fault series before a fault (the hold exported at 0 from the start, no fault counted) and after one
     * met the running consumer's breaker (the fault counted by step and reason, the hold at 1). Run last: the
     * consumer is held from then on.
     */
    private static void assertRouteFaultSeries(TestPipeline pipeline, URI url) throws Exception {
        Scrape before = Scrape.of(url, Duration.ofSeconds(5));
        assertThat(before.has("ingest_pipeline_fault_held", Map.of())).as("the hold, before any fault").isTrue();
        assertThat(before.sum("ingest_pipeline_fault_held", Map.of())).isZero();
        assertThat(before.has("ingest_pipeline_faults_total", Map.of())).as("no fault counted yet").isFalse();

        // what ${body.pageCont} throws in the parse step, as the failure route hands it to the breaker
        org.apache.camel.Exchange failed = new org.apache.camel.support.DefaultExchange(pipeline.app().context());
        failed.setProperty(org.ingestquarantine.pipeline.PipelineKeys.STAGE, "parse");
        failed.setProperty(org.apache.camel.Exchange.EXCEPTION_CAUGHT,
                new org.apache.camel.language.bean.RuntimeBeanExpressionException(failed, "null", "pageCont",
                        new org.apache.camel.component.bean.MethodNotFoundException(Object.class, "pageCont")));
        pipeline.app().bean("consumerCircuitBreaker", org.ingestquarantine.delivery.ConsumerCircuitBreaker.class)
                .onFailure(failed);

        Scrape after = Scrape.of(url, Duration.ofSeconds(5));
        assertThat(after.sum("ingest_pipeline_faults_total", Map.of("stage", "parse", "reason", "expression_failed")))
                .as("the fault, counted by step and reason").isEqualTo(1.0);
        assertThat(after.sum("ingest_pipeline_fault_held", Map.of())).as("the hold").isEqualTo(1.0);
    }

    /** @return metric names in every rule expression, less the recording rules' own names */
    private static Set<String> usedByRules() throws Exception {
        Set<String> names = new TreeSet<>();
        Set<String> recorded = new TreeSet<>();
        for (String file : PrometheusRulesTest.files(".rules.yml")) {
            Map<?, ?> doc = (Map<?, ?>) new Load(LoadSettings.builder().build()).loadFromString(Files.readString(Path.of(file)));
            for (Object group : (List<?>) doc.get("groups")) {
                for (Object rule : (List<?>) ((Map<?, ?>) group).get("rules")) {
                    Map<?, ?> r = (Map<?, ?>) rule;
                    names.addAll(metricNames((String) r.get("expr")));
                    if (r.get("record") != null) {
                        recorded.add((String) r.get("record"));
                    }
                }
            }
        }
        names.removeAll(recorded);
        return names;
    }

    /** @return metric names in every panel query and template variable of the dashboard */
    private static Set<String> usedByDashboard() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        Set<String> names = new TreeSet<>();
        List<String> exprs = new ArrayList<>();
        dashboard.path("panels").forEach(p -> p.path("targets").forEach(t -> exprs.add(t.path("expr").asText())));
        assertThat(exprs).as("dashboard queries").isNotEmpty();
        exprs.forEach(e -> names.addAll(metricNames(e)));
        Pattern labelValues = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)");
        dashboard.path("templating").path("list").forEach(v -> {
            Matcher m = labelValues.matcher(v.path("definition").asText());
            if (m.find()) {
                names.add(m.group(1));
            }
        });
        // recording rules the dashboard reads are checked through their own expressions
        names.removeIf(n -> n.contains(":"));
        return names;
    }

    /** @return the metric names of one PromQL expression: identifiers outside label matchers, ranges and clauses */
    static Set<String> metricNames(String expr) {
        String bare = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = NAME.matcher(bare);
        while (m.find()) {
            if (!KEYWORDS.contains(m.group())) {
                names.add(m.group());
            }
        }
        return names;
    }
}
