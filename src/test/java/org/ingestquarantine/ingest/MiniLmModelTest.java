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

/** embed.model-file names the model, empty takes the class path's, and a model that is not there is refused naming the key. */
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
        assertThat(model.toString()).isEqualTo(file.toAbsolutePath().toString());
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
}
