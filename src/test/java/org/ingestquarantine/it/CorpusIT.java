package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.ingestquarantine.db.Database;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.ModelService;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Ensures every real-world corpus file ends in exactly one outcome that agrees with MANIFEST.tsv, that
 * documents failing the same way share a fingerprint while different failures do not, and that no
 * document text reaches the logs. The pipeline embeds through an embedding service, as production mode runs
 * ({@code embed.provider = openai} against the real all-MiniLM-L6-v2 behind {@code /v1/embeddings} on loopback): the
 * documents MANIFEST.tsv says the local embedder indexes are indexed, each first vector within 1e-4 of the local
 * model's. Chunks are cut before embedding, so a chunk count cannot depend on the provider; the provider's context
 * limit is the local model's (a chunk over it would be {@code downstream_contract}, and MANIFEST.tsv has none).
 */
class CorpusIT {

    private static final Duration WAIT = Duration.ofMinutes(10);
    /** How many requests the embedding service serves at once: the consumer's embedding pool sends two. */
    private static final int SERVICE_THREADS = 2;
    private static final double VECTOR_TOLERANCE = 1e-4;

    @TempDir
    Path data;

    @Test
    void shouldSettleEveryCorpusFileAsTheManifestExpects() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        logs.start();
        root.addAppender(logs);
        Map<String, Corpus.Row> manifest = Corpus.manifest();
        try (MiniLmEmbedder model = new MiniLmEmbedder();
             ModelService service = ModelService.start(model, 0, SERVICE_THREADS);
             TestPipeline pipeline = TestPipeline.start(data, Map.of("parse.pool-size", "2",
                     "embed.provider", "openai", "embed.openai.url", service.url()))) {
            Map<String, String> keys = new LinkedHashMap<>();
            for (String file : manifest.keySet()) {
                keys.put(file, pipeline.publishFile("corpus", file, Corpus.file(file)));
            }
            List<String> disagreements = new ArrayList<>();
            Map<String, Set<String>> fingerprintsByReason = new HashMap<>();
            Map<String, Integer> documentsByReason = new HashMap<>();
            Map<String, String> outcomes = new HashMap<>();
            for (Map.Entry<String, String> e : keys.entrySet()) {
                String file = e.getKey();
                String outcome = pipeline.awaitOutcome(e.getValue(), WAIT);
                outcomes.put(file, outcome);
                Corpus.Row row = manifest.get(file);
                String actual = outcome;
                if ("quarantined".equals(outcome)) {
                    QuarantineRecord r = pipeline.store().find("corpus", file).orElseThrow();
                    actual = r.errorClass().code();
                    fingerprintsByReason.computeIfAbsent(actual + "/" + r.reasonCode(), k -> new HashSet<>())
                            .add(r.errorFingerprint());
                    documentsByReason.merge(actual + "/" + r.reasonCode(), 1, Integer::sum);
                } else {
                    assertThat(outcome).as(file).isEqualTo("indexed");
                    assertThat(pipeline.store().find("corpus", file)).as("%s has no quarantine record", file).isEmpty();
                }
                if (!row.acceptable().contains(actual)) {
                    disagreements.add(file + " (" + row.category() + "): expected " + row.expectedClass() + ", got " + actual);
                }
            }
            assertThat(disagreements).as("files whose outcome disagrees with MANIFEST.tsv").isEmpty();

            // same failure, same fingerprint, across many documents; different failures, different fingerprints.
            // Encryption fails two ways: a wrong user password (PDFBox) and a certificate handler (our check).
            assertThat(documentsByReason.get("permanent_input/not_pdf")).isGreaterThanOrEqualTo(10);
            assertThat(fingerprintsByReason.get("permanent_input/not_pdf")).hasSize(1);
            assertThat(documentsByReason.get("permanent_input/no_text_layer")).isGreaterThanOrEqualTo(10);
            assertThat(fingerprintsByReason.get("permanent_input/no_text_layer")).hasSize(1);
            assertThat(documentsByReason.get("permanent_input/encrypted")).isGreaterThanOrEqualTo(10);
            assertThat(fingerprintsByReason.get("permanent_input/encrypted")).hasSizeBetween(1, 2);
            List<String> reasons = List.of("permanent_input/not_pdf", "permanent_input/no_text_layer", "permanent_input/encrypted");
            for (String a : reasons) {
                for (String b : reasons) {
                    if (!a.equals(b)) {
                        assertThat(fingerprintsByReason.get(a)).as("%s vs %s", a, b)
                                .doesNotContainAnyElementsOf(fingerprintsByReason.get(b));
                    }
                }
            }

            DataSource ds = pipeline.app().bean("database", Database.class).dataSource();
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM documents WHERE source = 'corpus' AND state = 'searchable'")
                    + SqlCount.of(ds, "SELECT count(*) FROM quarantine WHERE source = 'corpus'"))
                    .as("every file has exactly one outcome row").isEqualTo(manifest.size());
            long indexed = outcomes.values().stream().filter("indexed"::equals).count();
            assertThat(indexed).as("documents indexed: at least those MANIFEST.tsv says the local embedder indexes")
                    .isGreaterThanOrEqualTo(manifest.values().stream().filter(r -> r.acceptable().equals(List.of("indexed"))).count());
            assertThat(SqlCount.of(ds, "SELECT count(*) FROM documents WHERE source = 'corpus' AND state = 'searchable'"
                    + " AND embedder_version = 'openai:" + ModelService.MODEL + "/" + MiniLmEmbedder.DIMENSIONS + "'"))
                    .as("indexed documents embedded by the service").isEqualTo(indexed);
            assertFirstVectorsAreTheLocalModels(ds, model);
            assertNoDocumentTextIn(logs, ds);
        } finally {
            root.detachAppender(logs);
        }
    }

    private static void assertFirstVectorsAreTheLocalModels(DataSource ds, MiniLmEmbedder model) throws Exception {
        int compared = 0;
        try (Connection c = ds.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT doc_id, text, embedding FROM chunks WHERE source = 'corpus'"
                     + " AND seq = 0");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                Float[] served = (Float[]) rs.getArray(3).getArray();
                float[] local = model.embed(List.of(rs.getString(2))).get(0);
                assertThat(served).as(rs.getString(1)).hasSize(local.length);
                for (int d = 0; d < local.length; d++) {
                    assertThat((double) Math.abs(served[d] - local[d])).as("%s dimension %d", rs.getString(1), d)
                            .isLessThan(VECTOR_TOLERANCE);
                }
                compared++;
            }
        }
        assertThat(compared).as("indexed documents compared").isGreaterThan(30);
    }

    private static void assertNoDocumentTextIn(ListAppender<ILoggingEvent> logs, DataSource ds) throws Exception {
        List<String> samples = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement s = c.prepareStatement("SELECT text FROM chunks WHERE source = 'corpus' AND seq = 0");
             ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                String text = rs.getString(1).strip();
                if (text.length() >= 24) {
                    samples.add(text.substring(0, 24));
                }
            }
        }
        assertThat(samples).as("indexed documents with text to look for").hasSizeGreaterThan(30);
        List<String> lines = logs.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).as("captured log lines").isNotEmpty();
        for (String line : lines) {
            for (String sample : samples) {
                assertThat(line).as("a log line carries document text").doesNotContain(sample);
            }
        }
    }

}
