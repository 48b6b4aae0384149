package org.ingestquarantine.quarantine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A {@link PayloadStore} in a local folder: an object with SHA-256 {@code h} lives at
 * {@code <root>/<h[0..2]>/<h>} and its URI is that file's {@code file:} URI. Writes go to a temporary file
 * in the same folder and are moved into place, so a reader never sees a partial object.
 *
 * <p>Default root: {@link #DEFAULT_ROOT}.
 */
public final class LocalPayloadStore implements PayloadStore {

    /** Folder used when none is given: {@code ./data/objects}. */
    public static final Path DEFAULT_ROOT = Path.of("data", "objects");

    private final Path root;

    /** @param root the folder holding the objects; created on first write */
    public LocalPayloadStore(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** @return a store at {@link #DEFAULT_ROOT} */
    public static LocalPayloadStore atDefaultRoot() {
        return new LocalPayloadStore(DEFAULT_ROOT);
    }

    /** @return the absolute root folder */
    public Path root() {
        return root;
    }

    @Override
    public StoredObject put(byte[] bytes) throws IOException {
        // bytes already in memory (stack traces): hash first, and write nothing when the object is stored already
        String hash = HexFormat.of().formatHex(sha256().digest(bytes));
        Path target = pathOf(hash);
        if (Files.exists(target)) {
            return new StoredObject(target.toUri().toString(), hash, bytes.length);
        }
        try (InputStream in = new java.io.ByteArrayInputStream(bytes)) {
            return store(in);
        }
    }

    @Override
    public StoredObject put(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return store(in);
        }
    }

    private StoredObject store(InputStream in) throws IOException {
        Files.createDirectories(root);
        Path temp = Files.createTempFile(root, "incoming-", ".tmp");
        try {
            MessageDigest digest = sha256();
            long size;
            try (OutputStream out = new DigestOutputStream(Files.newOutputStream(temp), digest)) {
                size = in.transferTo(out);
            }
            String hash = HexFormat.of().formatHex(digest.digest());
            Path target = pathOf(hash);
            if (!Files.exists(target)) {
                Files.createDirectories(target.getParent());
                try {
                    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
                } catch (FileAlreadyExistsException e) {
                    // a concurrent writer stored the same bytes first
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return new StoredObject(target.toUri().toString(), hash, size);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    @Override
    public InputStream open(String uri) throws IOException {
        return Files.newInputStream(resolve(uri));
    }

    @Override
    public boolean exists(String uri) {
        return Files.isRegularFile(resolve(uri));
    }

    @Override
    public boolean delete(String uri) throws IOException {
        return Files.deleteIfExists(resolve(uri));
    }

    private Path pathOf(String hash) {
        return root.resolve(hash.substring(0, 2)).resolve(hash);
    }

    private Path resolve(String uri) {
        Path path;
        try {
            path = Path.of(URI.create(uri)).toAbsolutePath().normalize();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a payload URI of this store: " + uri, e);
        }
        if (!path.startsWith(root)) {
            throw new IllegalArgumentException("payload URI " + uri + " is outside the store root " + root);
        }
        return path;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }
}
