package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** A TCP port on loopback that was free a moment ago. */
public final class FreePort {

    private FreePort() {
    }

    /** @return the port */
    public static int find() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
