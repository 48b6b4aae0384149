package org.ingestquarantine.quarantine;

import java.io.IOException;

/**
 * The bytes read of a stored object do not hash to the SHA-256 that names it: the object was changed or damaged
 * in the store. Thrown at the end of the stream, after every byte was read.
 */
public class PayloadCorruptException extends IOException {

    /** @param message the object's URI and both hashes; never document text */
    public PayloadCorruptException(String message) {
        super(message);
    }
}
