package org.ingestquarantine.ingest;

import java.io.IOException;
import java.net.URI;

/**
 * Decides, before a connector touches it, whether a URI may be read for one source: the message's URI and
 * every redirect a connector follows. Made by {@link SourceAccess#guard(String)}.
 */
@FunctionalInterface
public interface UriGuard {

    /**
     * Lets every URI through: for connectors called without a source, such as the {@code reproduce}
     * command reading a stored payload. Never for a message's URI.
     */
    UriGuard UNCHECKED = uri -> uri;

    /**
     * @param uri the URI about to be read
     * @return the URI to read instead: for {@code file:} the real path (symlinks resolved), so what was
     *     checked is what is read; else {@code uri} itself
     * @throws org.ingestquarantine.failure.PermanentInputException with reason {@code uri_not_allowed}
     *     (or {@code invalid_uri} for a malformed one) when the source may not read it
     * @throws IOException when the check itself cannot look (a name that does not resolve)
     */
    URI check(URI uri) throws IOException;

    /**
     * Checks an {@code http(s)} URI (the message's or a redirect's) and resolves its host once: the connector connects
     * to the address returned and looks the name up no more ({@link HostResolver}). This default, for guards that
     * check no addresses ({@link #UNCHECKED}), resolves with the JVM's resolver after {@link #check}.
     *
     * @param uri the URI about to be requested
     * @return the URI to request and the address to connect to
     * @throws org.ingestquarantine.failure.PermanentInputException as {@link #check}, and {@code invalid_uri} for a
     *     URI that is not {@code http(s)}
     * @throws org.ingestquarantine.failure.TransientException with reason {@code unknown_host} when the host does not
     *     resolve
     * @throws IOException when the check itself cannot look
     */
    default HttpTarget checkHttp(URI uri) throws IOException {
        URI checked = check(uri);
        return new HttpTarget(checked, HttpTarget.resolve(checked, HostResolver.SYSTEM)[0]);
    }
}
