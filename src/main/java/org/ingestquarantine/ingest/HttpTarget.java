package org.ingestquarantine.ingest;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.LogSafe;

/**
 * An {@code http(s)} URI that passed its {@link UriGuard}, with the address its host resolved to during that check:
 * the only address the request may connect to ({@link HostResolver}).
 *
 * @param uri the URI to request; its host goes in the {@code Host} header and TLS server name
 * @param address where to connect
 */
public record HttpTarget(URI uri, InetAddress address) {

    /**
     * @param uri an {@code http(s)} URI
     * @param resolver the lookup
     * @return every address of its host
     * @throws PermanentInputException with reason {@code invalid_uri} for a URI that is not {@code http(s)} or has no host
     * @throws TransientException with reason {@code unknown_host} when the host does not resolve
     */
    public static InetAddress[] resolve(URI uri, HostResolver resolver) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new PermanentInputException("invalid_uri", "the uri " + LogSafe.identity(uri.toString())
                    + " is not an http(s) URI with a host");
        }
        String host = host(uri);
        try {
            InetAddress[] addresses = resolver.resolve(host);
            if (addresses == null || addresses.length == 0) {
                throw new UnknownHostException(host);
            }
            return addresses;
        } catch (UnknownHostException e) {
            throw new TransientException("unknown_host", "the host " + LogSafe.identity(host)
                    + " does not resolve; retrying later", e);
        }
    }

    /** @return {@code uri}'s host, lower case, an IPv6 literal without its brackets */
    static String host(URI uri) {
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }
}
