package org.ingestquarantine.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Properties;

/**
 * Files holding secrets (database passwords): readable and writable by their owner only (mode 600), and written
 * atomically (a temporary file beside the target, moved over it), so a reader sees all of one or nothing.
 */
public final class OwnerOnlyFiles {

    private OwnerOnlyFiles() {
    }

    /**
     * @param file where
     * @param properties what
     * @param comment the file's first line, saying what it is
     * @throws UncheckedIOException if it cannot be written
     */
    public static void writeProperties(Path file, Properties properties, String comment) {
        try {
            write(file, tmp -> {
                try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                    properties.store(w, comment);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param file where
     * @param text what, as UTF-8
     * @throws IOException if it cannot be written
     */
    static void writeString(Path file, String text) throws IOException {
        write(file, tmp -> Files.writeString(tmp, text, StandardCharsets.UTF_8));
    }

    /** What goes into the temporary file before it is moved over the target. */
    private interface Content {
        void writeTo(Path tmp) throws IOException;
    }

    private static void write(Path file, Content content) throws IOException {
        Path tmp = ownerOnly(Files.createTempFile(file.toAbsolutePath().getParent(), "." + file.getFileName(), ".tmp"));
        try {
            content.writeTo(tmp);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * @param file a file just created
     * @return it, readable and writable by its owner only (where the file system has POSIX permissions)
     */
    static Path ownerOnly(Path file) throws IOException {
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        }
        return file;
    }
}
