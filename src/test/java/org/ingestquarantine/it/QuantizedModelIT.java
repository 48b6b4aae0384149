package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.ingest.MiniLmEmbedder;
import org.ingestquarantine.ingest.MiniLmModel;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code embed.local-model=all-minilm-l6-v2-q}: the main job embeds with the int8-quantized model and the index
 * records its embedder_version, so rows embedded by either model are told apart.
 */
class QuantizedModelIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final Path SAMPLE = Path.of("samples", "pdfs", "02-text-three-pages.pdf");

    @TempDir
    Path data;

    @Test
    void shouldIndexWithTheQuantizedModelAndRecordItsVersion() throws Exception {
        List<String> versions = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        List<float[]> stored = new ArrayList<>();
        // one chunk per model call: an int8 vector depends slightly on the chunks batched with it (the model scales
        // its activations once per call), and the pool's batches depend on timing; alone, each is reproducible
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of(MiniLmModel.VARIANT_PROPERTY,
                "all-minilm-l6-v2-q", "embed.threads", "1", "embed.batch-chunks", "1"))) {
            assertThat(pipeline.awaitOutcome(pipeline.publishFile("it", "q", SAMPLE), WAIT)).isEqualTo("indexed");
            try (Connection c = pipeline.dataSource().getConnection();
                 PreparedStatement s = c.prepareStatement("SELECT d.embedder_version, k.text, k.embedding"
                         + " FROM documents d JOIN chunks k ON k.source = d.source AND k.doc_id = d.doc_id"
                         + " WHERE d.source = 'it' AND d.doc_id = 'q' ORDER BY k.seq");
                 ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    versions.add(r.getString(1));
                    texts.add(r.getString(2));
                    Float[] v = (Float[]) r.getArray(3).getArray();
                    float[] f = new float[v.length];
                    for (int i = 0; i < v.length; i++) {
                        f[i] = v[i];
                    }
                    stored.add(f);
                }
            }
        }
        assertThat(texts).isNotEmpty();
        assertThat(versions).containsOnly("all-minilm-l6-v2-q/langchain4j-1.19.0/input-256");
        List<float[]> int8;
        List<float[]> fp32;
        try (MiniLmEmbedder q = new MiniLmEmbedder(1, 1, MiniLmEmbedder.MAX_TOKENS,
                MiniLmModel.onClassPath(MiniLmModel.Variant.INT8));
             MiniLmEmbedder f = new MiniLmEmbedder(1, 8)) {
            int8 = q.embed(texts);
            fp32 = f.embed(texts);
        }
        for (int i = 0; i < texts.size(); i++) {
            assertThat(1 - dot(stored.get(i), int8.get(i))).as("chunk %d against the int8 model", i).isLessThan(1e-5);
            assertThat(1 - dot(stored.get(i), fp32.get(i))).as("chunk %d against the fp32 model", i)
                    .isGreaterThan(1e-5);
        }
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int d = 0; d < a.length; d++) {
            s += a[d] * b[d];
        }
        return s;
    }
}
