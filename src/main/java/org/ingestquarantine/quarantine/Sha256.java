package org.ingestquarantine.quarantine;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256, the name of every stored object. */
final class Sha256 {

    private Sha256() {
    }

    /** @return a new digest */
    static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java runtime", e);
        }
    }
}
