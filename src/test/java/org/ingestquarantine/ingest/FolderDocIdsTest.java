package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a folder file's doc_id is lossless (issue 21): names that are not valid UTF-8 never share one, with each
 * other or with a valid name, and a valid name keeps the doc_id it always had.
 */
class FolderDocIdsTest {

    @TempDir
    Path root;

    private Path file(String rawRelative) throws Exception {
        Path p = Path.of(URI.create(root.toUri() + rawRelative));
        Files.createDirectories(p.getParent());
        return Files.writeString(p, "x");
    }

    @Test
    void shouldKeepAValidNameAsItIs() throws Exception {
        assertThat(FolderDocIds.of(root, file("sub/caf%C3%A9%20%F0%9F%98%80.pdf"))).isEqualTo("sub/caf\u00e9 \ud83d\ude00.pdf");
    }

    @Test
    void shouldGiveNamesThatAreNotUtf8TheirOwnDocIds() throws Exception {
        List<Path> files = List.of(file("a%FF.pdf"), file("a%FE.pdf"), file("a%EF%BF%BDFF.pdf"), file("a%3F.pdf"),
                file("a%EF%BF%BD.pdf"), file("a%ED%A0%80.pdf"), file("d%E9/x.pdf"), file("d%E8/x.pdf"));
        Set<String> ids = new HashSet<>();
        for (Path f : files) {
            ids.add(FolderDocIds.of(root, f));
        }
        assertThat(ids).as("one doc_id per file").hasSize(files.size());
        assertThat(FolderDocIds.of(root, files.get(0))).isEqualTo("a\ufffdFF.pdf");
        assertThat(FolderDocIds.of(root, files.get(2))).as("a U+FFFD of the name itself, doubled")
                .isEqualTo("a\ufffd\ufffdFF.pdf");
        assertThat(FolderDocIds.of(root, files.get(5))).as("an encoded surrogate is not UTF-8: no lone surrogate made")
                .isEqualTo("a\ufffdED\ufffdA0\ufffd80.pdf");
        assertThat(Files.readString(Path.of(files.get(0).toUri()))).as("the URI names the same file").isEqualTo("x");
    }
}
