package org.ingestquarantine.quarantine;

/**
 * An object in the payload store.
 *
 * @param uri where it lives, e.g. {@code file:///.../data/objects/ab/ab12...}; pass it back to {@link PayloadStore}
 * @param sha256 lower-case hex SHA-256 of the bytes (64 characters)
 * @param bytes size in bytes
 */
public record StoredObject(String uri, String sha256, long bytes) {
}
