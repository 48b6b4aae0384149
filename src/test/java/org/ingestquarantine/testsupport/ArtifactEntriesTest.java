package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import ai.onnxruntime.OrtEnvironment;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the production artifacts' checks look for, found in the full distribution's own jars: ONNX Runtime's other
 * platforms' natives (its Windows debug file among them) but not its Linux x86-64 ones, zonky's PostgreSQL builds,
 * and the model.
 */
class ArtifactEntriesTest {

    private static Path jarOf(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void shouldTellOtherPlatformsNativesFromLinuxX8664s() throws Exception {
        List<ArtifactEntries> onnx = ArtifactEntries.of(jarOf(OrtEnvironment.class));
        assertThat(onnx).filteredOn(ArtifactEntries::isForeignNative).extracting(ArtifactEntries::name)
                .contains("ai/onnxruntime/native/win-x64/onnxruntime.pdb", "ai/onnxruntime/native/osx-x64/libonnxruntime.dylib",
                        "ai/onnxruntime/native/linux-aarch64/libonnxruntime.so")
                .noneMatch(name -> name.contains("linux-x64"));
        assertThat(onnx).filteredOn(ArtifactEntries::isNative).extracting(ArtifactEntries::name)
                .contains("ai/onnxruntime/native/linux-x64/libonnxruntime.so");
        assertThat(onnx).noneMatch(ArtifactEntries::isEmbeddedService).noneMatch(ArtifactEntries::isModel);
    }

    @Test
    void shouldFindTheEmbeddedServicesAndTheModel() throws Exception {
        assertThat(ArtifactEntries.of(jarOf(EmbeddedPostgres.class))).anyMatch(ArtifactEntries::isEmbeddedService);
        assertThat(ArtifactEntries.of(jarHolding("/postgres-linux-x86_64.txz"))).anyMatch(ArtifactEntries::isEmbeddedService);
        assertThat(ArtifactEntries.of(jarHolding("/all-minilm-l6-v2.onnx"))).anyMatch(ArtifactEntries::isModel);
    }

    /** @return the jar on the class path that holds {@code resource} */
    private static Path jarHolding(String resource) throws Exception {
        String url = ArtifactEntriesTest.class.getResource(resource).toString(); // jar:file:/...jar!/resource
        return Path.of(java.net.URI.create(url.substring("jar:".length(), url.indexOf("!/"))));
    }
}
