package org.ingestquarantine.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures worker JVMs map an existing class-data archive, that only one worker of a JVM writes a missing one
 * (to a temporary name the launcher checks before using it), and that without the property nothing changes.
 */
class WorkerCdsArchiveTest {

    @Test
    void shouldMapAnExistingArchiveAndLetOneWorkerWriteAMissingOne(@TempDir Path dir) throws Exception {
        ParseLimits limits = ParseLimits.defaults();
        Path existing = Files.createFile(dir.resolve("existing.jsa"));
        assertThat(WorkerProcess.command(limits, existing.toString())).contains("-XX:SharedArchiveFile=" + existing)
                .noneMatch(a -> a.startsWith("-XX:ArchiveClassesAtExit"));

        String missing = dir.resolve("missing.jsa").toString();
        String writes = "-XX:ArchiveClassesAtExit=" + missing + ".tmp." + ProcessHandle.current().pid();
        long writers = Stream.of(WorkerProcess.command(limits, missing), WorkerProcess.command(limits, missing))
                .filter(c -> c.contains(writes)).count();
        assertThat(writers).as("workers writing the missing archive").isEqualTo(1);

        List<String> plain = WorkerProcess.command(limits, null);
        assertThat(plain).noneMatch(a -> a.startsWith("-XX:SharedArchiveFile") || a.startsWith("-XX:ArchiveClassesAtExit"));
        assertThat(plain.indexOf("-cp")).isLessThan(plain.indexOf(WorkerMain.class.getName()));
    }
}
