package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Properties;
import org.ingestquarantine.testsupport.PostgresTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the folder an ingest configured is kept for later drains, replaces an earlier one, is used only for a
 * source the process's own configuration does not name, and is left out once the folder is gone.
 */
class SourceRootsIT extends PostgresTestBase {

    @TempDir
    Path temp;

    @Test
    void shouldKeepTheLastFolderAnIngestConfiguredPerSource() throws Exception {
        SourceRoots roots = new SourceRoots(dataSource(), Clock.systemUTC());
        Path first = Files.createDirectories(temp.resolve("first"));
        Path second = Files.createDirectories(temp.resolve("second"));

        roots.record("pdfs", first, SourceRoots.INGEST_COMMAND);
        roots.record("pdfs", second, SourceRoots.INGEST_COMMAND);
        roots.record("scans", first, SourceRoots.INGEST_COMMAND);

        assertThat(roots.all()).isEqualTo(Map.of("pdfs", second, "scans", first));
    }

    @Test
    void shouldAddARecordedRootOnlyForASourceTheConfigurationDoesNotName() throws Exception {
        Path recorded = Files.createDirectories(temp.resolve("recorded"));
        Path configured = Files.createDirectories(temp.resolve("configured"));
        Properties own = new Properties();
        own.setProperty("sources.contracts.file-roots", configured.toString());
        own.setProperty("sources.web.http-allow", "https://docs.example.com");

        Properties merged = SourceRoots.withRecordedRoots(own, Map.of("contracts", recorded, "web", recorded,
                "pdfs", recorded, "gone", temp.resolve("deleted-folder")));

        assertThat(merged.getProperty("sources.contracts.file-roots")).isEqualTo(configured.toString());
        assertThat(merged.getProperty("sources.web.file-roots")).isNull();
        assertThat(merged.getProperty("sources.pdfs.file-roots")).isEqualTo(recorded.toString());
        assertThat(merged.stringPropertyNames()).noneMatch(k -> k.startsWith("sources.gone."));
        assertThat(own).hasSize(2);
        assertThat(SourceAccess.fromProperties(merged).sourceNames()).containsExactly("contracts", "pdfs", "web");
    }
}
