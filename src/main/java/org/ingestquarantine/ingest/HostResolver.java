package org.ingestquarantine.ingest;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The one DNS lookup of an HTTP request: the {@link UriGuard} resolves the host with it, checks the answer, and the
 * {@link HttpConnector} connects to that answer and never looks the name up again, so a name whose answer changes
 * after the check (DNS rebinding) cannot lead the connection elsewhere, whatever the JVM's DNS cache does.
 */
@FunctionalInterface
public interface HostResolver {

    /** The JVM's resolver ({@link InetAddress#getAllByName}). */
    HostResolver SYSTEM = InetAddress::getAllByName;

    /**
     * @param host a host name or an IP literal (IPv6 without brackets)
     * @return its addresses, at least one
     * @throws UnknownHostException when it does not resolve
     */
    InetAddress[] resolve(String host) throws UnknownHostException;
}
