package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.ingestquarantine.app.AppConfiguration;
import org.ingestquarantine.delivery.IngestPublisher;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.FailureEvidence;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.Scrape;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures producers never choose source names (issue 21): messages naming hundreds of unconfigured sources leave
 * /metrics, the API's coverage and stats and the store bounded by configuration, before and after a restart (the
 * store gauges), also over rows an older version recorded under such names; a message naming the reserved source
 * cannot take a record over; a refused message for an indexed document leaves that document no open record.
 */
class ProducerSourcesIT {

    private static final Duration WAIT = Duration.ofSeconds(600);
    /**
     * Names producers chose: 25 times operator.unnamed-source-rows (20), far past every bound the assertions check
     * (a tag is a set lookup with no count threshold: SourceTags); 5,000 proved no more in ten times the minutes.
     */
    private static final int PRODUCER_NAMES = Integer.getInteger("it.producer-names", 500);
    private static final int OLD_POLLUTED_NAMES = 500;
    private static final int METRICS_MAX_BYTES = 100 * 1024;
    private static final String TOKEN = "producer-sources-it";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path data;

    @Test
    void shouldKeepProducerChosenSourceNamesOutOfMetricsPagesAndTheStoreAcrossARestart() throws Exception {
        URI document = Corpus.file("c0007.pdf").toUri();
        try (TestPipeline pipeline = TestPipeline.start(data, properties())) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < PRODUCER_NAMES; i++) {
                keys.add(pipeline.publish(new IngestMessage(producerName(i), "doc.pdf", document, null, null, null)));
            }
            for (String key : keys) {
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(key).isEqualTo("quarantined");
            }
            QuarantineRecord one = pipeline.store().find(RecordKey.INVALID_MESSAGES_SOURCE, keys.get(0)).orElseThrow();
            assertThat(one.errorClass()).isEqualTo(ErrorClass.PERMANENT_INPUT);
            assertThat(one.reasonCode()).isEqualTo("unknown_source");
            assertThat(one.payloadUri()).as("the message is kept as evidence").isNotNull();
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine WHERE source LIKE 'producer-%'"))
                    .as("rows under a producer's source name").isZero();
            assertBounded(pipeline, false);

            // what an older version left: records under OLD_POLLUTED_NAMES names producers chose
            for (int i = 0; i < OLD_POLLUTED_NAMES; i++) {
                pipeline.store().record(FailureEvidence.builder("old-" + i, "doc.pdf").errorClass(ErrorClass.PERMANENT_INPUT)
                        .reasonCode("unknown_source").failure(new IllegalStateException("not configured")).build());
            }
        }
        try (TestPipeline again = TestPipeline.start(data, properties())) {
            assertBounded(again, true);
        }
    }

    /** The reserved source with an existing record's doc_id: a record of its own, the existing one unchanged. */
    @Test
    void shouldNotLetAProducerWriteIntoAnInvalidMessagesRecord() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            String unreadable = publisher.publishRaw("not json");
            assertThat(pipeline.awaitOutcome(unreadable, WAIT)).isEqualTo("quarantined");
            QuarantineRecord before = pipeline.store().find(RecordKey.INVALID_MESSAGES_SOURCE, unreadable).orElseThrow();

            String takeover = pipeline.publish(new IngestMessage(RecordKey.INVALID_MESSAGES_SOURCE, unreadable,
                    Corpus.file("c0007.pdf").toUri(), null, null, null));
            assertThat(pipeline.awaitOutcome(takeover, WAIT)).isEqualTo("quarantined");

            QuarantineRecord after = pipeline.store().find(RecordKey.INVALID_MESSAGES_SOURCE, unreadable).orElseThrow();
            assertThat(after.quarantineWrites()).isEqualTo(1);
            assertThat(after.errorMessage()).isEqualTo(before.errorMessage());
            assertThat(after.lastSeenAt()).isEqualTo(before.lastSeenAt());
            assertThat(pipeline.store().attempts(after.dlqId())).hasSize(1);
            QuarantineRecord own = pipeline.store().find(RecordKey.INVALID_MESSAGES_SOURCE, takeover).orElseThrow();
            assertThat(own.dlqId()).isNotEqualTo(before.dlqId());
            assertThat(own.reasonCode()).isEqualTo("invalid_message");
            assertThat(own.errorMessage()).contains("reserved");
        }
    }

    /** source_version, cursor and uri are bounded: one clear permanent_input/invalid_message record, never unclassified. */
    @Test
    void shouldRefuseOverlongFieldsAsInvalidMessagesThroughThePipeline() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            IngestPublisher publisher = pipeline.app().bean("ingestPublisher", IngestPublisher.class);
            String file = Corpus.file("c0007.pdf").toUri().toString();
            Map<String, String> bodies = Map.of(
                    "uri", message(file + "/" + "a".repeat(100 * 1024), null),
                    "source_version", message(file, "\"source_version\":\"" + "v".repeat(5_000) + "\""),
                    "cursor", message(file, "\"cursor\":\"" + "c".repeat(5_000) + "\""),
                    "ingest_seq", message(file, "\"ingest_seq\":-1"));
            for (Map.Entry<String, String> e : bodies.entrySet()) {
                String key = publisher.publishRaw(e.getValue());
                assertThat(pipeline.awaitOutcome(key, WAIT)).as(e.getKey()).isEqualTo("quarantined");
                QuarantineRecord r = pipeline.store().find(RecordKey.INVALID_MESSAGES_SOURCE, key).orElseThrow();
                assertThat(r.errorClass()).as(e.getKey()).isEqualTo(ErrorClass.PERMANENT_INPUT);
                assertThat(r.reasonCode()).as(e.getKey()).isEqualTo("invalid_message");
                assertThat(r.errorMessage()).as(e.getKey()).contains(e.getKey()).hasSizeLessThan(300);
            }
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM quarantine WHERE source = 'it'")).isZero();
        }
    }

    /**
     * A message whose URI its source refuses, naming a document the index holds, is a message's failure: the
     * document keeps no open record (a drain could never close it: the record would keep no URI).
     */
    @Test
    void shouldNotOpenARecordOnAnIndexedDocumentForARefusedMessage() throws Exception {
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of())) {
            String indexed = pipeline.publishFile("it", "doc.pdf", Corpus.file("c0007.pdf"));
            assertThat(pipeline.awaitOutcome(indexed, WAIT)).isEqualTo("indexed");
            String refused = pipeline.publish(new IngestMessage("it", "doc.pdf", URI.create("file:///etc/passwd"),
                    null, null, null));
            assertThat(pipeline.awaitOutcome(refused, WAIT)).isEqualTo("quarantined");

            assertThat(pipeline.store().find("it", "doc.pdf")).as("a record on the indexed document").isEmpty();
            QuarantineRecord r = pipeline.store().find(RecordKey.INVALID_MESSAGES_SOURCE, refused).orElseThrow();
            assertThat(r.reasonCode()).isEqualTo("uri_not_allowed");
            assertThat(r.payloadUri()).as("the message kept as evidence").isNotNull();
            List<QuarantineAttempt> attempts = pipeline.store().attempts(r.dlqId());
            assertThat(attempts).hasSize(1);
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("open attempts").isZero();
        }
    }

    private static String message(String uri, String extra) {
        return "{\"source\":\"it\",\"doc_id\":\"doc.pdf\",\"uri\":\"" + uri + "\"" + (extra == null ? "" : "," + extra) + "}";
    }

    private static String producerName(int i) {
        return String.format("producer-%05d", i);
    }

    private static Map<String, String> properties() {
        Map<String, String> p = new HashMap<>();
        p.put("metrics.store-poll-ms", "200");
        p.put(AppConfiguration.SERVE_OPERATOR_API, "true");
        p.put("operator.api-token", TOKEN);
        p.put("operator.api-port", "0");
        return p;
    }

    /**
     * /metrics under {@value #METRICS_MAX_BYTES} bytes with no producer's name in a tag, the store gauges read (the
     * reserved source's open records), and the API's coverage and stats rows bounded by configuration.
     */
    private static void assertBounded(TestPipeline pipeline, boolean oldRows) throws Exception {
        URI scrape = URI.create(pipeline.app().bean(AppConfiguration.SCRAPE_URL, String.class));
        // one record per delivery key: at least one per name (an SDK retry of a send the broker failed to answer
        // publishes a second message)
        long invalid = SqlCount.of(pipeline.dataSource(),
                "SELECT count(*) FROM quarantine WHERE source = '_invalid_messages' AND disposition = 'open'");
        assertThat(invalid).isGreaterThanOrEqualTo(PRODUCER_NAMES);
        Awaitility.await("store gauges read").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(Scrape.of(scrape, Duration.ofSeconds(10)).samples().stream()
                        .filter(s -> s.name().equals("quarantine_open_documents")
                                && RecordKey.INVALID_MESSAGES_SOURCE.equals(s.labels().get("source")))
                        .map(Scrape.Sample::value).toList()).containsExactly((double) invalid));
        HttpResponse<String> metrics = HTTP.send(HttpRequest.newBuilder(scrape).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.body().length()).as("bytes of /metrics").isLessThan(METRICS_MAX_BYTES);
        assertThat(metrics.body()).doesNotContain("producer-").doesNotContain("source=\"old-");
        Scrape s = Scrape.of(scrape, Duration.ofSeconds(10));
        if (oldRows) {
            assertThat(s.samples()).as("the old rows' open records, summed under one series")
                    .anyMatch(x -> x.name().equals("quarantine_open_documents")
                            && RecordKey.OTHER_SOURCES.equals(x.labels().get("source")) && x.value() == OLD_POLLUTED_NAMES);
        }

        int bound = TestPipeline.TEST_SOURCES.size() + 2 + 20; // + _invalid_messages, _other; operator.unnamed-source-rows
        JsonNode coverage = api(pipeline, "api/coverage").get("sources");
        assertThat(coverage.size()).as("coverage rows").isLessThanOrEqualTo(bound);
        List<String> names = new ArrayList<>();
        coverage.forEach(r -> names.add(r.get("source").asText()));
        assertThat(names).noneMatch(n -> n.startsWith("producer-")).contains(RecordKey.INVALID_MESSAGES_SOURCE);
        if (oldRows) {
            assertThat(names).contains(RecordKey.OTHER_SOURCES);
        }
        JsonNode stats = api(pipeline, "api/stats").get("sources");
        assertThat(stats.size()).as("stats rows").isLessThanOrEqualTo(bound);
        assertThat(stats.at("/0/source").asText()).isEqualTo(RecordKey.INVALID_MESSAGES_SOURCE);
        assertThat(stats.at("/0/documents").asLong()).isEqualTo(invalid);
    }

    private static JsonNode api(TestPipeline pipeline, String path) throws Exception {
        String page = pipeline.app().bean(AppConfiguration.OPERATOR_PAGE_URL, String.class);
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(page + path))
                .header("Authorization", "Bearer " + TOKEN).GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return JSON.readTree(r.body());
    }
}
