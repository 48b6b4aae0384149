package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures payloads are content-addressed, idempotent to store, and confined to the store's folder. */
class LocalPayloadStoreTest {

    @TempDir
    Path temp;

    @Test
    void shouldStoreTheSameBytesOnceUnderTheirSha256() throws Exception {
        LocalPayloadStore store = new LocalPayloadStore(temp.resolve("objects"));
        Path file = Files.write(temp.resolve("doc.pdf"), "hello".getBytes(StandardCharsets.UTF_8));

        StoredObject fromFile = store.put(file);
        StoredObject fromBytes = store.put("hello".getBytes(StandardCharsets.UTF_8));

        assertThat(fromFile).isEqualTo(fromBytes);
        assertThat(fromFile.sha256()).isEqualTo("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
        assertThat(fromFile.bytes()).isEqualTo(5);
        assertThat(store.get(fromFile.uri())).asString(StandardCharsets.UTF_8).isEqualTo("hello");
        try (var files = Files.walk(store.root())) {
            assertThat(files.filter(Files::isRegularFile)).hasSize(1);
        }
    }

    @Test
    void shouldDeleteOnlyWhatItStores() throws Exception {
        LocalPayloadStore store = new LocalPayloadStore(temp.resolve("objects"));
        StoredObject o = store.put(new byte[] {9});

        assertThat(store.delete(o.uri())).isTrue();
        assertThat(store.exists(o.uri())).isFalse();
        assertThatThrownBy(() -> store.get(o.uri())).isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> store.delete(temp.resolve("elsewhere").toUri().toString()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @org.junit.jupiter.api.Test
    void shouldBeClaimedByOneDatabaseAndRefuseAnother(@org.junit.jupiter.api.io.TempDir java.nio.file.Path shared)
            throws Exception {
        new LocalPayloadStore(shared).claim("installation-1");
        new LocalPayloadStore(shared).claim("installation-1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new LocalPayloadStore(shared).claim("installation-2"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("another database")
                .hasMessageContaining("payload.local.dir");
    }
}
