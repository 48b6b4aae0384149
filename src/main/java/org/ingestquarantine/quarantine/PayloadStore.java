package org.ingestquarantine.quarantine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * Content-addressed object storage for quarantined payloads and stack traces (a local folder by default,
 * S3 optional: {@code payload.store}, see {@link PayloadStores}). Objects are named by their SHA-256, so storing the same bytes twice stores them once and
 * returns the same {@link StoredObject}. Objects are only deleted by erasure or payload expiry.
 */
public interface PayloadStore {

    /**
     * @param bytes the object's content
     * @return where it was stored
     * @throws IOException if it could not be written
     */
    StoredObject put(byte[] bytes) throws IOException;

    /**
     * Stores a copy of a file, streaming it (the file may be large).
     *
     * @param file a readable file
     * @return where it was stored
     * @throws IOException if the file cannot be read or the copy cannot be written
     */
    StoredObject put(Path file) throws IOException;

    /**
     * @param uri a URI returned by {@code put}
     * @return a stream of the object's bytes; close it
     * @throws java.nio.file.NoSuchFileException if there is no such object (expired or erased)
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if the URI does not belong to this store
     */
    InputStream open(String uri) throws IOException;

    /**
     * @param uri a URI returned by {@code put}
     * @return the object's bytes
     * @throws IOException as {@link #open(String)}
     */
    default byte[] get(String uri) throws IOException {
        try (InputStream in = open(uri)) {
            return in.readAllBytes();
        }
    }

    /**
     * @param uri a URI returned by {@code put}
     * @return whether the object exists
     * @throws IllegalArgumentException if the URI does not belong to this store
     */
    boolean exists(String uri);

    /**
     * Removes an object, for erasure or payload expiry only.
     *
     * @param uri a URI returned by {@code put}
     * @return whether an object was removed
     * @throws IOException if it exists and cannot be removed
     * @throws IllegalArgumentException if the URI does not belong to this store
     */
    boolean delete(String uri) throws IOException;

    /**
     * Whether the store answers now, for the consumer's circuit breaker: while it does not, the consumer is held.
     *
     * @return true when it answers; never throws
     */
    default boolean reachable() {
        return true;
    }
}
