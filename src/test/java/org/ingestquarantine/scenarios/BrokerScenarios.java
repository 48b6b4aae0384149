package org.ingestquarantine.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.awaitility.Awaitility;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.DocumentState;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.quarantine.QuarantineRecorder;
import org.ingestquarantine.testsupport.ConsumerProcess;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.LongPdf;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenario suite every broker must pass, the same routes over each (DESIGN.md §4, §8). A subclass
 * names the broker; each scenario counts from outside the pipeline.
 */
abstract class BrokerScenarios {

    static final Duration WAIT = Duration.ofSeconds(120);
    /** Good documents published behind the poison one. */
    static final int GOOD_BEHIND_POISON = 100;
    /**
     * How long the quarantine database stays down in the outage scenario: ten database probes (db.probe-interval-ms,
     * 1 s) with a batch held in flight; a longer outage repeats the same probes and proves nothing more.
     */
    static final Duration DB_OUTAGE = Duration.ofSeconds(10);
    /** Pages of the document the consumer is killed on: long enough to be caught in work. */
    static final int SLOW_PAGES = 300;

    static final Path SAMPLES = Path.of("samples", "pdfs");
    static final List<String> TEXT_SAMPLES = List.of("01-text-one-page.pdf", "02-text-three-pages.pdf",
            "03-text-seven-pages.pdf", "04-text-twelve-pages.pdf");

    @TempDir
    Path data;

    /** @return a new, not yet started fixture for the broker under test */
    abstract BrokerFixture fixture();

    /**
     * @return a fixture whose messages are consumed in the order published, as far as the broker orders
     *     at all (Kafka: a one-partition ingest topic); default {@link #fixture()}
     */
    BrokerFixture orderedFixture() {
        return fixture();
    }

    @Test
    void shouldDeliverEachClassRetriesPlusOneTimesThenQuarantineOnce() throws Exception {
        HttpServer unavailable = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        unavailable.createContext("/", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        unavailable.start();
        try (TestPipeline pipeline = TestPipeline.start(data, fixture(), allowLoopback(unavailable))) {
            String good = pipeline.publishFile("it", "good.pdf", Corpus.file("c0007.pdf"));
            String notPdf = pipeline.publishFile("it", "html.pdf", Corpus.file("c0066.pdf"));
            String damaged = pipeline.publishFile("it", "damaged.pdf", Corpus.file("c0069.pdf"));
            String flaky = pipeline.publish(new IngestMessage("it", "flaky.pdf",
                    URI.create("http://127.0.0.1:" + unavailable.getAddress().getPort() + "/flaky.pdf"), null, null, null));
            String opaque = pipeline.publish(new IngestMessage("it", "opaque.pdf", URI.create("file:opaque.pdf"),
                    null, null, null));

            assertThat(pipeline.awaitOutcome(good, WAIT)).isEqualTo("indexed");
            assertThat(pipeline.deliveries(good)).isEqualTo(1);
            for (String key : List.of(notPdf, damaged, flaky, opaque)) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(key).isEqualTo("quarantined");
            }
            pipeline.assertQuarantinedOnce(notPdf, "it", "html.pdf", ErrorClass.PERMANENT_INPUT, "not_pdf");
            pipeline.assertQuarantinedOnce(damaged, "it", "damaged.pdf", ErrorClass.AMBIGUOUS_PARSE, "parse_error");
            pipeline.assertQuarantinedOnce(flaky, "it", "flaky.pdf", ErrorClass.TRANSIENT, "http_503");
            // a file: URI naming no local path is the message's fault (issue 9): permanent_input, never read
            pipeline.assertQuarantinedOnce(opaque, "it", "opaque.pdf", ErrorClass.PERMANENT_INPUT, "invalid_uri");
            long quarantined = pipeline.broker().copiesQuarantinedToDeadLetters() ? 4 : 0;
            assertThat(pipeline.broker().deadLettered()).as("the broker's dead letters").isEqualTo(quarantined);
        } finally {
            unavailable.stop(0);
        }
    }

    @Test
    void shouldNotLetAPoisonDocumentHoldBackTheGoodOnes() throws Exception {
        HttpServer unavailable = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        unavailable.createContext("/", ex -> {
            ex.sendResponseHeaders(503, -1);
            ex.close();
        });
        unavailable.start();
        Path docs = Files.createDirectories(data.resolve("docs"));
        try (TestPipeline pipeline = TestPipeline.start(data.resolve("app"), orderedFixture(), allowLoopback(unavailable))) {
            // one good document settles first: its acknowledgement must survive the poison's redeliveries
            String ahead = pipeline.publishFile("it", "good-ahead.pdf", tinyPdf(docs.resolve("good-ahead.pdf"), -1));
            assertThat(pipeline.awaitOutcome(ahead, WAIT)).isEqualTo("indexed");
            String poison = pipeline.publish(new IngestMessage("it", "poison.pdf",
                    URI.create("http://127.0.0.1:" + unavailable.getAddress().getPort() + "/poison.pdf"), null, null, null));
            List<String> good = new ArrayList<>();
            for (int i = 0; i < GOOD_BEHIND_POISON; i++) {
                good.add(pipeline.publishFile("it", "good-" + i + ".pdf", tinyPdf(docs.resolve("good-" + i + ".pdf"), i)));
            }

            for (String key : good) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(key).isEqualTo("indexed");
                assertThat(pipeline.deliveries(key)).as("deliveries of %s", key).isEqualTo(1);
            }
            assertThat(pipeline.awaitOutcome(poison, WAIT)).isEqualTo("quarantined");
            pipeline.assertQuarantinedOnce(poison, "it", "poison.pdf", ErrorClass.TRANSIENT, "http_503");
            assertThat(pipeline.deliveries(ahead)).as("deliveries of the document ahead").isEqualTo(1);
        } finally {
            unavailable.stop(0);
        }
    }

    /**
     * DESIGN.md §8.1 under a database outage: the embedded PostgreSQL stops for {@link #DB_OUTAGE} with a
     * batch in flight. While it is down nothing is settled and nothing reaches the broker's dead letters;
     * once it is back every message has exactly one outcome, recorded once.
     */
    @Test
    void shouldRecordEveryMessageOnceWhenTheDatabaseIsDownMidRun() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, fixture(), Map.of())) {
            Batch batch = Batch.publish(pipeline, "outage");
            EmbeddedPostgresService postgres = pipeline.postgres();

            Awaitility.await("first outcomes").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                    .until(() -> pipeline.settlements() >= 2);
            postgres.stop();
            // an outcome that committed just before the stop may be settled (counted, acknowledged) a moment after
            // it on a loaded machine: the baseline is taken once the count has held still for a second. A delivery
            // wrongly settled without its commit would still fail below (its outcome and its record are checked).
            long settledBeforeOutage = settledOnceStill(pipeline);
            assertThat(settledBeforeOutage).as("the outage must catch messages in flight").isLessThan(batch.sent());
            long deadLetteredBeforeOutage = pipeline.broker().deadLettered();
            Awaitility.await("nothing settled or dead-lettered while the database is down").during(DB_OUTAGE)
                    .atMost(DB_OUTAGE.plusSeconds(30)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> pipeline.settlements() == settledBeforeOutage
                            && pipeline.broker().deadLettered() == deadLetteredBeforeOutage);
            postgres.start();

            for (String key : batch.good().keySet()) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(batch.good().get(key)).isEqualTo("indexed");
            }
            for (String key : batch.bad().keySet()) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(batch.bad().get(key)).isEqualTo("quarantined");
            }
            assertThat(pipeline.settlements()).as("every message settled exactly once").isEqualTo(batch.sent());
            assertThat(openAttempts(pipeline, "outage")).as("attempts left open, i.e. counted as deaths").isZero();
            batch.assertEachRecordedOnce(pipeline);
            for (String docId : batch.bad().values()) {
                QuarantineRecord r = pipeline.store().find("outage", docId).orElseThrow();
                assertThat(r.attempts()).as("attempts of %s", docId).isEqualTo(1);
                assertThat(pipeline.store().attempts(r.dlqId())).as("history of %s", docId).hasSize(1);
            }
        }
    }

    /**
     * DESIGN.md §8.1 under kill -9: the production consumer, in its own JVM, is killed with documents in
     * flight; a new consumer settles every message once, and nothing is lost or recorded twice.
     */
    @Test
    void shouldLoseNothingWhenTheConsumerIsKilledMidRun() throws Exception {
        Path log = ConsumerProcess.freshLog("consumer-killed-" + getClass().getSimpleName() + ".log");
        Path slow = LongPdf.write(Files.createDirectories(data.resolve("docs")).resolve("slow.pdf"), SLOW_PAGES);
        try (TestPipeline pipeline = TestPipeline.startIdle(data.resolve("app"), fixture())) {
            Batch batch = Batch.publish(pipeline, "kill", slow);
            Path consumerData = data.resolve("consumer");
            try (ConsumerProcess consumer = pipeline.startConsumerProcess(consumerData, log)) {
                Awaitility.await("the slow document in work").atMost(WAIT).pollInterval(Duration.ofMillis(20))
                        .until(() -> SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE source = ? AND doc_id = 'slow.pdf'"
                                + " AND closed_at IS NULL AND stage IN ('parse', 'chunk', 'embed')", "kill") == 1);
                consumer.kill9();
            }
            long deaths = openAttempts(pipeline, "kill");
            assertThat(deaths).as("attempts the kill cut short").isPositive();
            assertThat(batch.settled(pipeline)).as("the kill must come mid-run").isLessThan(batch.sent());

            try (ConsumerProcess consumer = pipeline.startConsumerProcess(consumerData, log)) {
                // the slow document starts over in the new consumer: on a loaded 2-core machine it alone takes minutes
                Awaitility.await("every message settled by the next consumer").atMost(WAIT.multipliedBy(3))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> batch.settled(pipeline) >= batch.sent());
                IngestPublisher publisher = pipeline.bean("ingestPublisher", IngestPublisher.class);
                Awaitility.await("every message acknowledged").atMost(WAIT).until(() -> publisher.pending() == 0);
                // stopped hard: the clean SIGTERM exit is pinned once, by it.ConsumerKilledIT
            }
            batch.assertEachRecordedOnce(pipeline);
            assertThat(openAttempts(pipeline, "kill")).as("attempts left open: only those the kill cut short").isEqualTo(deaths);
            // the kill costs the slow document exactly one delivery count (issue 10 item 6)
            assertThat(deliveryCounts(pipeline, "kill", "slow.pdf")).as("delivery counts of the killed document")
                    .containsExactly(1, 2);
        }
    }

    /**
     * A small mixed batch: good text PDFs and not-PDF / encrypted ones (permanent_input), interleaved.
     *
     * @param source the source they are published under
     * @param good delivery key to doc id of the good documents
     * @param bad delivery key to doc id of the bad ones
     */
    record Batch(String source, Map<String, String> good, Map<String, String> bad) {

        static final int GOOD = 10;
        static final List<String> BAD = List.of("09-not-pdf-html.pdf", "06-encrypted-user-password.pdf");

        /**
         * Publishes {@value #GOOD} good documents with the {@link #BAD} ones among them, and the further good
         * ones given (doc id: their file name) in the middle.
         */
        static Batch publish(TestPipeline pipeline, String source, Path... moreGood) {
            Map<String, String> good = new LinkedHashMap<>();
            Map<String, String> bad = new LinkedHashMap<>();
            for (int i = 0; i < GOOD; i++) {
                String docId = "good-" + i + ".pdf";
                good.put(pipeline.publishFile(source, docId, SAMPLES.resolve(TEXT_SAMPLES.get(i % TEXT_SAMPLES.size()))), docId);
                if (i == GOOD / 2) {
                    for (Path file : moreGood) {
                        good.put(pipeline.publishFile(source, file.getFileName().toString(), file), file.getFileName().toString());
                    }
                }
                if (i % (GOOD / BAD.size()) == 1) {
                    String file = BAD.get(bad.size());
                    bad.put(pipeline.publishFile(source, "bad-" + file, SAMPLES.resolve(file)), "bad-" + file);
                }
            }
            return new Batch(source, good, bad);
        }

        int sent() {
            return good.size() + bad.size();
        }

        /** @return documents of this batch indexed or quarantined so far, read from the tables */
        long settled(TestPipeline pipeline) throws Exception {
            return searchable(pipeline, source) + quarantineRows(pipeline, source);
        }

        /**
         * Counted in the tables and at the broker, outside the pipeline: sent = indexed + quarantined, every
         * good document searchable once with all its chunks, one quarantine row per bad one, and nothing in
         * the broker's dead letters beyond the copies its fixture says it keeps.
         */
        void assertEachRecordedOnce(TestPipeline pipeline) throws Exception {
            assertThat(settled(pipeline)).as("indexed + quarantined")
                    .isEqualTo(sent());
            DocumentIndex index = pipeline.bean("documentIndex", DocumentIndex.class);
            for (String docId : good.values()) {
                assertThat(index.state(source, docId)).as(docId).contains(DocumentState.SEARCHABLE);
                assertThat(pipeline.store().find(source, docId)).as("quarantine row of %s", docId).isEmpty();
            }
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM documents WHERE source = ?", source))
                    .as("document rows").isEqualTo(good.size());
            assertThat(chunksVersusChunkCount(pipeline, source)).as("documents whose chunk rows differ from chunk_count").isEmpty();
            for (String docId : bad.values()) {
                assertThat(pipeline.store().find(source, docId)).as(docId).get()
                        .extracting(QuarantineRecord::errorClass).isEqualTo(ErrorClass.PERMANENT_INPUT);
            }
            assertThat(quarantineRows(pipeline, source)).as("one row per bad document").isEqualTo(bad.size());
            long copies = pipeline.broker().copiesQuarantinedToDeadLetters() ? bad.size() : 0;
            Awaitility.await("the broker's dead letters").atMost(WAIT).pollInterval(Duration.ofMillis(500))
                    .until(() -> pipeline.broker().deadLettered() >= copies);
            assertThat(pipeline.broker().deadLettered()).as("the broker's dead letters").isEqualTo(copies);
        }
    }

    /** Writes a one-page PDF whose only text names {@code n}. */
    static Path tinyPdf(Path file, int n) throws IOException {
        try (PDDocument doc = new PDDocument()) {
            PDPage page = new PDPage();
            doc.addPage(page);
            try (PDPageContentStream text = new PDPageContentStream(doc, page)) {
                text.beginText();
                text.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                text.newLineAtOffset(72, 700);
                text.showText("Good document number " + n + " behind a poison one.");
                text.endText();
            }
            doc.save(file.toFile());
        }
        return file;
    }

    @Test
    void shouldQuarantineUnreadableMessagesOnFirstDelivery() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, fixture(), Map.of())) {
            IngestPublisher publisher = pipeline.bean("ingestPublisher", IngestPublisher.class);
            Map<String, String> bodies = new LinkedHashMap<>();
            for (String body : List.of("this is not { json", "{\"source\":\"it\",\"uri\":\"file:///tmp/x.pdf\"}")) {
                bodies.put(publisher.publishRaw(body), body);
            }
            for (Map.Entry<String, String> sent : bodies.entrySet()) {
                String key = sent.getKey();
                assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
                QuarantineRecord r = pipeline.assertQuarantinedOnce(key, QuarantineRecorder.INVALID_MESSAGES_SOURCE, key,
                        ErrorClass.PERMANENT_INPUT, "invalid_message");
                assertThat(r.errorMessage()).isNotBlank();
                // the message itself is the payload, kept byte for byte (issue 10 item 5)
                TestPipeline.assertPayload(r, sent.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void shouldLoseNothingWhenTheBrokerRestarts() throws Exception {
        BrokerFixture fixture = fixture();
        assumeTrue(fixture.canRestart(), fixture.name() + " fixture cannot restart its broker");
        try (TestPipeline pipeline = TestPipeline.start(data, fixture, Map.of())) {
            Map<String, String> good = new LinkedHashMap<>();
            for (int i = 0; i < 12; i++) {
                Path pdf = SAMPLES.resolve(TEXT_SAMPLES.get(i % TEXT_SAMPLES.size()));
                good.put(pipeline.publishFile("restart", "good-" + i + ".pdf", pdf), "good-" + i + ".pdf");
            }
            Map<String, String> poison = new LinkedHashMap<>();
            for (int i = 0; i < 2; i++) {
                poison.put(pipeline.publishFile("restart", "poison-" + i + ".pdf", SAMPLES.resolve("09-not-pdf-html.pdf")),
                        "poison-" + i + ".pdf");
            }
            Awaitility.await().atMost(WAIT).until(() -> good.keySet().stream().filter(k -> pipeline.outcomeOf(k) != null).count() >= 2);

            fixture.restartBroker();

            for (String key : good.keySet()) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(good.get(key)).isIn("indexed", "unchanged");
            }
            for (String key : poison.keySet()) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(poison.get(key)).isEqualTo("quarantined");
            }
            IngestPublisher publisher = pipeline.bean("ingestPublisher", IngestPublisher.class);
            Awaitility.await().atMost(WAIT).until(() -> publisher.pending() == 0);

            DocumentIndex index = pipeline.bean("documentIndex", DocumentIndex.class);
            for (String docId : good.values()) {
                assertThat(index.state("restart", docId)).as(docId).contains(DocumentState.SEARCHABLE);
            }
            assertThat(chunksVersusChunkCount(pipeline, "restart")).as("documents whose chunk rows differ from chunk_count").isEmpty();
            for (String docId : poison.values()) {
                QuarantineRecord r = pipeline.store().find("restart", docId).orElseThrow();
                assertThat(r.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
            }
            assertThat(quarantineRows(pipeline, "restart")).as("one row per poison document").isEqualTo(poison.size());
            assertThat(pipeline.broker().deadLettered()).as("nothing left to the broker's backstop").isZero();
        }
    }

    /** @return doc ids of {@code source} whose stored chunk rows differ from documents.chunk_count, or have none */
    private static List<String> chunksVersusChunkCount(TestPipeline pipeline, String source) throws Exception {
        String sql = "SELECT d.doc_id FROM documents d WHERE d.source = ? AND (d.chunk_count = 0 OR d.chunk_count <> "
                + "(SELECT count(*) FROM chunks c WHERE c.source = d.source AND c.doc_id = d.doc_id))";
        List<String> wrong = new ArrayList<>();
        try (Connection c = pipeline.dataSource().getConnection(); PreparedStatement s = c.prepareStatement(sql)) {
            s.setString(1, source);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    wrong.add(rs.getString(1));
                }
            }
        }
        return wrong;
    }

    static long quarantineRows(TestPipeline pipeline, String source) throws Exception {
        return SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine WHERE source = ?", source);
    }

    private static long searchable(TestPipeline pipeline, String source) throws Exception {
        return SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM documents WHERE source = ? AND state = 'searchable'", source);
    }

    /** @return the delivery counts the journal recorded for one document's attempts, oldest first */
    private static List<Integer> deliveryCounts(TestPipeline pipeline, String source, String docId) throws Exception {
        List<Integer> counts = new ArrayList<>();
        try (Connection c = pipeline.dataSource().getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT delivery_count FROM attempt_journal WHERE source = ? AND doc_id = ? ORDER BY attempt_id")) {
            s.setString(1, source);
            s.setString(2, docId);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    counts.add(rs.getInt(1));
                }
            }
        }
        return counts;
    }

    /** @return attempts started and not (yet) closed: in flight, or cut short by a death */
    static long openAttempts(TestPipeline pipeline, String source) throws Exception {
        return SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE source = ? AND closed_at IS NULL", source);
    }

    /** @return the single number {@code sql} selects, with {@code source} as its one parameter */

    /** @return overrides letting source {@code it} read the given loopback server (a test's own, never a default) */
    private static Map<String, String> allowLoopback(HttpServer server) {
        return Map.of("sources.it.http-allow", "http://127.0.0.1:" + server.getAddress().getPort(),
                "sources.it.http-allow-private", "true");
    }


    /** @return the pipeline's settlement count once it has not changed for one second (at most ten tries) */
    private static long settledOnceStill(TestPipeline pipeline) throws InterruptedException {
        long seen = pipeline.settlements();
        for (int i = 0; i < 10; i++) {
            Thread.sleep(1000);
            long now = pipeline.settlements();
            if (now == seen) {
                return now;
            }
            seen = now;
        }
        return seen;
    }
}
