package org.ingestquarantine.ingest;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * Which addresses a message must not make the pipeline connect to unless its source allows internal addresses
 * ({@code sources.<name>.http-allow-private}).
 *
 * <p>IPv4: this network (0.0.0.0/8), private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), loopback
 * (127/8), link-local (169.254/16), IETF protocol assignments (192.0.0/24), benchmarking (198.18/15), multicast
 * (224/4), reserved and broadcast (240/4).
 *
 * <p>IPv6: unspecified and loopback, link-local (fe80::/10), site-local (fec0::/10), unique-local (fc00::/7),
 * multicast (ff00::/8), the whole deprecated IPv4-compatible range (::/96, {@code ::127.0.0.1}), local-use NAT64
 * (64:ff9b:1::/48); and, by the IPv4 address they carry, IPv4-mapped (::ffff:0:0/96), well-known NAT64
 * (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: its server and its obfuscated client address).
 */
final class InternalAddresses {

    private InternalAddresses() {
    }

    /**
     * @param a an address
     * @return whether it is internal, as the class comment lists
     */
    static boolean isInternal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress() || a.isAnyLocalAddress()
                || a.isMulticastAddress()) {
            return true;
        }
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address) {
            return internalV4(b);
        }
        return a instanceof Inet6Address && internalV6(b);
    }

    private static boolean internalV4(byte[] b) {
        int first = b[0] & 0xff;
        int second = b[1] & 0xff;
        return first == 0 || first == 10 || first == 127 || first >= 224
                || first == 100 && (second & 0xc0) == 64
                || first == 169 && second == 254
                || first == 172 && (second & 0xf0) == 16
                || first == 192 && second == 168
                || first == 192 && second == 0 && (b[2] & 0xff) == 0
                || first == 198 && (second & 0xfe) == 18;
    }

    private static boolean internalV6(byte[] b) {
        int first = b[0] & 0xff;
        if ((first & 0xfe) == 0xfc || first == 0xff || first == 0xfe && (b[1] & 0xc0) != 0) {
            // unique-local, multicast, link-local and site-local (fe80::/10, fec0::/10)
            return true;
        }
        if (zero(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
            return internalV4(Arrays.copyOfRange(b, 12, 16));
        }
        if (zero(b, 0, 12)) {
            return true;
        }
        if (first == 0x00 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b) {
            if (zero(b, 4, 12)) {
                return internalV4(Arrays.copyOfRange(b, 12, 16));
            }
            return (b[4] & 0xff) == 0x00 && (b[5] & 0xff) == 0x01;
        }
        if (first == 0x20 && (b[1] & 0xff) == 0x02) {
            return internalV4(Arrays.copyOfRange(b, 2, 6));
        }
        if (first == 0x20 && (b[1] & 0xff) == 0x01 && b[2] == 0 && b[3] == 0) {
            byte[] client = Arrays.copyOfRange(b, 12, 16);
            for (int i = 0; i < client.length; i++) {
                client[i] = (byte) ~client[i];
            }
            return internalV4(Arrays.copyOfRange(b, 4, 8)) || internalV4(client);
        }
        return false;
    }

    private static boolean zero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
