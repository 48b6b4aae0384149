package org.ingestquarantine.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.ConsumerCircuitBreaker;
import org.ingestquarantine.testsupport.QuarantineWriteOutage;
import org.ingestquarantine.testsupport.Scrape;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Ensures the signals tell the truth: counters only after a committed record, the age gauge of an old record,
 * a scrape that answers through a database outage, and failure rates apart from coverage.
 */
class SignalsIT {

    private static final Duration WAIT = Duration.ofSeconds(240);
    private static final Duration SCRAPE_WITHIN = Duration.ofSeconds(2);
    /** How long the database stays down while the endpoint is scraped. */
    /** Long enough for several gauge polls to fail behind the scrape. */
    private static final Duration OUTAGE = Duration.ofSeconds(10);
    private static final Path GOOD = Path.of("samples/pdfs/01-text-one-page.pdf");
    private static final Path NOT_PDF = Path.of("samples/pdfs/09-not-pdf-html.pdf");
    /** 8 days in seconds: an open record first seen 8 days ago reads at least this. */
    private static final double EIGHT_DAYS_S = 691_200;

    @TempDir
    Path data;

    @Test
    void shouldCountNoQuarantineWhoseRecordWriteFails() throws Exception {
        try (TestPipeline pipeline = start(Map.of("sqs.visibility-timeout-s", "900"))) {
            EmbeddedPostgresService postgres = pipeline.postgres();
            ConsumerCircuitBreaker breaker = pipeline.app().bean("consumerCircuitBreaker", ConsumerCircuitBreaker.class);
            // the first time the quarantine route runs, the database goes away under its record statement
            AtomicInteger quarantineRuns = QuarantineWriteOutage.stopDatabaseAtFirstWrites(pipeline, 1);
            String key = pipeline.publishFile("signals", "html.pdf", NOT_PDF);

            await().atMost(WAIT).until(() -> quarantineRuns.get() >= 1 && breaker.isOpen());
            Scrape during = scrape(pipeline);
            assertThat(during.sum("ingest_quarantined_total", Map.of())).as("quarantines counted, record not written")
                    .isZero();
            assertThat(during.sum("ingest_failed_total", Map.of())).isZero();

            postgres.start();
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            Scrape after = scrape(pipeline);
            assertThat(after.sum("ingest_quarantined_total", Map.of("source", "signals", "error_class",
                    "permanent_input", "reason", "not_pdf"))).as("counted once, when the record committed").isEqualTo(1);
            assertThat(after.sum("ingest_quarantined_total", Map.of())).isEqualTo(1);
            assertThat(after.sum("ingest_failed_total", Map.of("source", "signals"))).isEqualTo(1);
        }
    }

    @Test
    void shouldReadTheAgeOfAnOpenRecordFirstSeenEightDaysAgo() throws Exception {
        try (TestPipeline pipeline = start(Map.of())) {
            String key = pipeline.publishFile("aged", "html.pdf", NOT_PDF);
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            new JdbcTemplate(pipeline.dataSource()).update("UPDATE quarantine SET first_seen_at = now() - interval '8 days'"
                    + " WHERE source = 'aged'");

            await().atMost(WAIT).until(() -> scrape(pipeline).sum("quarantine_oldest_open_age_seconds",
                    Map.of("source", "aged")) >= EIGHT_DAYS_S);
            Scrape s = scrape(pipeline);
            assertThat(s.sum("quarantine_oldest_open_age_seconds", Map.of("source", "aged")))
                    .isGreaterThanOrEqualTo(EIGHT_DAYS_S).isLessThan(EIGHT_DAYS_S + 3600);
            assertThat(s.sum("quarantine_open_documents", Map.of("source", "aged"))).isEqualTo(1);
            // 8 days is not yet overdue (operator.retention-age-days): the series reads 0, never absent
            assertThat(s.has("quarantine_overdue_documents", Map.of())).isTrue();
            assertThat(s.sum("quarantine_overdue_documents", Map.of())).isZero();
        }
    }

    @Test
    void shouldAnswerTheScrapeDuringADatabaseOutageWithTheLastValuesAndTheirAge() throws Exception {
        try (TestPipeline pipeline = start(Map.of())) {
            knownTotal(pipeline, "outage", 2);
            String key = pipeline.publishFile("outage", "html.pdf", NOT_PDF);
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            await().atMost(WAIT).until(() -> scrape(pipeline).sum("quarantine_open_documents",
                    Map.of("source", "outage")) == 1);

            pipeline.postgres().stop();
            try {
                // an outage: answered within SCRAPE_WITHIN every time, while the gauge reader fails behind it
                long downSince = System.nanoTime();
                Scrape down;
                do {
                    down = scrape(pipeline);
                    assertThat(down.sum("quarantine_open_documents", Map.of("source", "outage")))
                            .as("last value kept").isEqualTo(1);
                    assertThat(down.has("coverage_ratio", Map.of("source", "outage"))).isTrue();
                    Thread.sleep(500);
                } while (System.nanoTime() - downSince < OUTAGE.toNanos());
                assertThat(down.sum("quarantine_gauges_age_seconds", Map.of()))
                        .as("the reading says how old it is").isGreaterThanOrEqualTo(OUTAGE.toSeconds() - 3);
            } finally {
                pipeline.postgres().start();
            }
            await("read again").atMost(WAIT).until(() -> scrape(pipeline).sum("quarantine_gauges_age_seconds",
                    Map.of()) < 2);

            // scraping without pause never holds up a document
            List<Exception> errors = new ArrayList<>();
            Thread scraper = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        scrape(pipeline);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        errors.add(e);
                    }
                }
            });
            scraper.start();
            try {
                String good = pipeline.publishFile("outage", "good.pdf", GOOD);
                assertThat(pipeline.awaitOutcome(good, WAIT)).isEqualTo("indexed");
            } finally {
                scraper.interrupt();
                scraper.join();
            }
            assertThat(errors).isEmpty();
        }
    }

    /**
     * Rate vs coverage at a small scale: {@value #GOOD_DOCUMENTS} good text PDFs and {@value #FAILING_DOCUMENTS}
     * failing ones whose bytes are not a PDF, in one source. The global failure rate stays low while the failing
     * population's own rate is 100%, and coverage counts the missing documents.
     */
    @Test
    void shouldGiveEachPopulationItsOwnFailureRateAndCoverageTheMissingDocuments() throws Exception {
        try (TestPipeline pipeline = start(Map.of())) {
            knownTotal(pipeline, "mixed", GOOD_DOCUMENTS + FAILING_DOCUMENTS);
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < GOOD_DOCUMENTS; i++) {
                keys.add(pipeline.publishFile("mixed", "good-" + i + ".pdf", GOOD));
            }
            for (int i = 0; i < FAILING_DOCUMENTS; i++) {
                keys.add(pipeline.publishFile("mixed", "bad-" + i + ".pdf", NOT_PDF));
            }
            for (String key : keys) {
                pipeline.awaitOutcome(key, WAIT);
            }
            double total = GOOD_DOCUMENTS + FAILING_DOCUMENTS;
            // the store's gauges are polled (metrics.store-poll-ms): wait for a poll that saw every outcome
            await().atMost(WAIT).until(() -> scrape(pipeline).has("coverage_ratio", Map.of("source", "mixed"))
                    && scrape(pipeline).sum("quarantine_open_documents", Map.of("source", "mixed")) == FAILING_DOCUMENTS
                    && scrape(pipeline).sum("coverage_ratio", Map.of("source", "mixed")) == GOOD_DOCUMENTS / total);
            Scrape s = scrape(pipeline);
            Map<String, String> source = Map.of("source", "mixed");
            Map<String, String> pdf = Map.of("source", "mixed", "content_type", "application/pdf");
            Map<String, String> other = Map.of("source", "mixed", "content_type", "application/octet-stream");
            assertThat(s.sum("ingest_processed_total", source)).isEqualTo(total);
            assertThat(s.sum("ingest_failed_total", source) / s.sum("ingest_processed_total", source))
                    .as("global failure rate").isEqualTo(FAILING_DOCUMENTS / total).isLessThan(0.025);
            assertThat(s.sum("ingest_failed_total", other) / s.sum("ingest_processed_total", other))
                    .as("failure rate of the non-PDF population").isEqualTo(1.0);
            assertThat(s.sum("ingest_failed_total", pdf) / s.sum("ingest_processed_total", pdf))
                    .as("failure rate of the PDF population").isZero();
            assertThat(s.sum("coverage_ratio", source)).as("coverage").isEqualTo(GOOD_DOCUMENTS / total);
            assertThat(s.sum("source_documents", source)).isEqualTo(total);
        }
    }

    private static final int GOOD_DOCUMENTS = 100;
    private static final int FAILING_DOCUMENTS = 2;

    private TestPipeline start(Map<String, String> extra) throws Exception {
        Map<String, String> p = new java.util.HashMap<>(Map.of("metrics.store-poll-ms", "200"));
        p.putAll(extra);
        return TestPipeline.start(data, p);
    }

    private static Scrape scrape(TestPipeline pipeline) throws Exception {
        return Scrape.of(URI.create(pipeline.app().bean(AppConfiguration.SCRAPE_URL, String.class)), SCRAPE_WITHIN);
    }

    /** The source's total as its connector would record it (source_totals), so that its coverage is known. */
    private static void knownTotal(TestPipeline pipeline, String source, long documents) {
        new org.ingestquarantine.ingest.SourceTotals(pipeline.dataSource(), java.time.Clock.systemUTC())
                .record(source, documents, "test", null);
    }
}
