package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.ingestquarantine.pipeline.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * embed.model-file names the model, empty takes the class path's, and a model that is not there is refused naming the
 * key; embed.local-model names the variant, and a file of the other variant is refused naming both keys.
 */
class MiniLmModelTest {

    private static Settings with(Map<String, String> values) {
        return new Settings(key -> Optional.ofNullable(values.get(key)));
    }

    @Test
    void shouldTakeTheClassPathsModelWhenThePropertyIsEmpty() {
        MiniLmModel model = MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, " ")));
        assertThat(model.toString()).contains("class path");
        assertThat(model.requirePresent()).isSameAs(model);
    }

    @Test
    void shouldTakeTheNamedFile(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("model.onnx"), "not read here");
        MiniLmModel model = MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, file.toString())));
        assertThat(model.toString()).endsWith(file.toAbsolutePath().toString());
        assertThat(model.requirePresent()).isSameAs(model);
    }

    @Test
    void shouldRefuseAFileThatIsNotThereNamingTheProperty(@TempDir Path dir) {
        Path missing = dir.resolve("nowhere.onnx");
        assertThatThrownBy(() -> MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, missing.toString()))).requirePresent())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("embed.model-file=" + missing.toAbsolutePath())
                .hasMessageContaining("embed.provider=openai");
        assertThatThrownBy(() -> MiniLmModel.file(dir).requirePresent())
                .as("a folder").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldTakeTheVariantEmbedLocalModelNames() {
        assertThat(MiniLmModel.of(with(Map.of())).variant()).isEqualTo(MiniLmModel.Variant.FP32);
        MiniLmModel q = MiniLmModel.of(with(Map.of(MiniLmModel.VARIANT_PROPERTY, "all-minilm-l6-v2-q")));
        assertThat(q.variant()).isEqualTo(MiniLmModel.Variant.INT8);
        assertThat(q.toString()).contains("/all-minilm-l6-v2-q.onnx");
        assertThat(q.requirePresent()).isSameAs(q);
        assertThatThrownBy(() -> MiniLmModel.of(with(Map.of(MiniLmModel.VARIANT_PROPERTY, "all-minilm-l6-v3"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("embed.local-model must be all-minilm-l6-v2 (fp32) or all-minilm-l6-v2-q (int8)");
    }

    /** The jars' own files: each accepted as its own variant, refused as the other naming what to set. */
    @Test
    void shouldAcceptEachModelFileAsItsOwnVariantAndRefuseItAsTheOther(@TempDir Path dir) throws Exception {
        Path fp32 = copy("/all-minilm-l6-v2.onnx", dir);
        Path int8 = copy("/all-minilm-l6-v2-q.onnx", dir);
        assertThat(MiniLmModel.quantized(int8)).isTrue();
        assertThat(MiniLmModel.quantized(fp32)).isFalse();
        assertThat(MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, int8.toString(),
                MiniLmModel.VARIANT_PROPERTY, "all-minilm-l6-v2-q"))).requirePresent().variant())
                .isEqualTo(MiniLmModel.Variant.INT8);
        assertThat(MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, fp32.toString()))).requirePresent().variant())
                .isEqualTo(MiniLmModel.Variant.FP32);
        assertThatThrownBy(() -> MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, int8.toString()))).requirePresent())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("embed.model-file=" + int8.toAbsolutePath() + " is the int8-quantized")
                .hasMessageContaining("set embed.local-model=all-minilm-l6-v2-q");
        assertThatThrownBy(() -> MiniLmModel.of(with(Map.of(MiniLmModel.PROPERTY, fp32.toString(),
                MiniLmModel.VARIANT_PROPERTY, "all-minilm-l6-v2-q"))).requirePresent())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("set embed.local-model=all-minilm-l6-v2,")
                .hasMessageContaining("point embed.model-file at all-minilm-l6-v2-q.onnx");
    }

    private static Path copy(String resource, Path dir) throws Exception {
        Path file = dir.resolve(resource.substring(1));
        try (java.io.InputStream in = MiniLmModelTest.class.getResourceAsStream(resource)) {
            Files.copy(in, file);
        }
        return file;
    }
}
