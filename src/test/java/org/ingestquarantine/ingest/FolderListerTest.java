package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a folder listing counts what the folder connector reads as documents: regular files, in subfolders too,
 * no symbolic link (to a file or to a folder outside the roots), a nested root once, and fails past its bound.
 */
class FolderListerTest {

    @TempDir
    Path tmp;

    @Test
    void shouldCountRegularFilesOnceAndFollowNoLink() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("root/sub/deeper"));
        Files.writeString(tmp.resolve("root/a.pdf"), "a");
        Files.writeString(tmp.resolve("root/sub/b.pdf"), "b");
        Files.writeString(root.resolve("c.pdf"), "c");
        Files.createDirectories(tmp.resolve("root/empty"));
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("x.pdf"), "x");
        Files.writeString(outside.resolve("y.pdf"), "y");
        Files.createSymbolicLink(tmp.resolve("root/to-outside"), outside);
        Files.createSymbolicLink(tmp.resolve("root/link.pdf"), tmp.resolve("root/a.pdf"));
        Properties p = new Properties();
        // a root nested in another is walked once
        p.setProperty("sources.s.file-roots", tmp.resolve("root") + "," + tmp.resolve("root/sub"));
        p.setProperty("sources.web.http-allow", "https://example.org/");
        FolderLister lister = new FolderLister(SourceAccess.fromProperties(p), 3);

        assertThat(lister.canList("s")).isTrue();
        assertThat(lister.canList("web")).as("no file-roots").isFalse();
        assertThat(lister.canList("nope")).isFalse();
        assertThat(lister.canList(null)).isFalse();
        assertThat(lister.count("s")).isEqualTo(3);
        assertThat(lister.version()).isEqualTo(FolderConnector.VERSION);

        Files.writeString(tmp.resolve("root/d.pdf"), "d");
        assertThatThrownBy(() -> lister.count("s")).isInstanceOf(IllegalStateException.class)
                .hasMessage("source 's' holds more than 3 files under its file-roots; raise sources.count-max-documents"
                        + " to list it, or state its total (sources set-total)");
    }
}
