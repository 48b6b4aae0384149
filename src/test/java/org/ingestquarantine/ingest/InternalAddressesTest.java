package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** Ensures every form of an internal address counts as internal, IPv4 ones carried in IPv6 included, and public ones do not. */
class InternalAddressesTest {

    private static void internal(String... addresses) throws Exception {
        for (String a : addresses) {
            assertThat(InternalAddresses.isInternal(InetAddress.getByName(a))).as(a).isTrue();
        }
    }

    private static void external(String... addresses) throws Exception {
        for (String a : addresses) {
            assertThat(InternalAddresses.isInternal(InetAddress.getByName(a))).as(a).isFalse();
        }
    }

    @Test
    void shouldKnowInternalIpv4Ranges() throws Exception {
        internal("127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                "100.64.0.1", "100.127.255.255", "0.0.0.0", "0.1.2.3", "192.0.0.170", "198.18.0.1", "198.19.255.255",
                "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255");
        external("93.184.216.34", "8.8.8.8", "100.128.0.1", "100.63.255.255", "172.32.0.1", "172.15.255.255",
                "198.20.0.1", "192.0.1.1", "11.0.0.1", "223.255.255.255");
    }

    @Test
    void shouldKnowInternalIpv6Ranges() throws Exception {
        internal("::", "::1", "fe80::1", "febf::1", "fec0::1", "fd00::1", "fc00::1", "ff02::1", "ff05::2");
        external("2606:2800:220:1::1", "2a00:1450:4001:80b::200e", "fe00::1");
    }

    @Test
    void shouldKnowIpv4MappedAddressesByTheirIpv4() throws Exception {
        internal("::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:10.0.0.1");
        external("::ffff:93.184.216.34");
        // the JVM turns a mapped literal into an Inet4Address; built as an Inet6Address it is read the same
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[12] = 127;
        mapped[15] = 1;
        assertThat(InternalAddresses.isInternal(java.net.Inet6Address.getByAddress(null, mapped, -1))).isTrue();
    }

    @Test
    void shouldTreatTheWholeIpv4CompatibleRangeAsInternal() throws Exception {
        internal("::127.0.0.1", "::7f00:1", "::169.254.169.254", "::10.0.0.1", "::93.184.216.34");
    }

    @Test
    void shouldKnowNat64AddressesByTheirIpv4AndTheLocalUsePrefixAsInternal() throws Exception {
        internal("64:ff9b::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b::10.0.0.1",
                "64:ff9b:1::5db8:d822", "64:ff9b:1:ffff::1");
        external("64:ff9b::93.184.216.34", "64:ff9b::808:808");
    }

    @Test
    void shouldKnow6to4AddressesByTheirIpv4() throws Exception {
        internal("2002:7f00:1::", "2002:7f00:0001::1", "2002:a9fe:a9fe::1", "2002:c0a8:0101::1", "2002:0a00:0001:1::1");
        external("2002:5db8:d822::1", "2002:0808:0808::1");
    }

    @Test
    void shouldKnowTeredoAddressesByTheirServerAndObfuscatedClient() throws Exception {
        // client 127.0.0.1 obfuscated (bits flipped): 80ff:fffe; server 93.184.216.34 = 5db8:d822
        internal("2001:0:5db8:d822:0:0:80ff:fffe", "2001:0:7f00:1:0:0:a247:f7fd", "2001:0:5db8:d822:8000:1234:5601:5656");
        external("2001:0:5db8:d822:0:0:a247:f7fd", "2001:0:4136:e378:8000:63bf:f7f7:f7f7");
    }
}
