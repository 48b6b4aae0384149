package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import org.ingestquarantine.failure.PermanentInputException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures a message can make the pipeline read only where its source's configuration says, checked on real files and real addresses. */
class SourceAccessTest {

    @TempDir
    Path dir;

    private Path contracts;
    private Path hr;
    private SourceAccess access;
    private final FolderConnector folder = new FolderConnector(java.time.Duration.ofSeconds(60));

    @BeforeEach
    void configure() throws Exception {
        contracts = Files.createDirectories(dir.resolve("contracts"));
        hr = Files.createDirectories(dir.resolve("hr"));
        Files.writeString(contracts.resolve("lease.pdf"), "%PDF-1.4 lease");
        Files.writeString(hr.resolve("salaries.pdf"), "%PDF-1.4 salaries");
        Files.createDirectories(contracts.resolve("2026"));
        Properties p = new Properties();
        p.setProperty("sources.contracts.file-roots", contracts + " , " + dir.resolve("contracts/2026"));
        p.setProperty("sources.hr.file-roots", hr.toString());
        p.setProperty("sources.site.http-allow", "https://docs.example.com, http://127.0.0.1:8080/public");
        p.setProperty("sources.lab.http-allow", "http://127.0.0.1:8080");
        p.setProperty("sources.lab.http-allow-private", "true");
        p.setProperty("unrelated.key", "x");
        access = SourceAccess.fromProperties(p);
    }

    private static String reason(Throwable t) {
        return ((PermanentInputException) t).reasonCode();
    }

    @Test
    void shouldAllowAFileUnderItsSourcesRootAndReadItsRealPath() throws Exception {
        URI checked = access.check("contracts", contracts.resolve("lease.pdf").toUri());
        assertThat(Path.of(checked)).isEqualTo(contracts.resolve("lease.pdf").toRealPath());
        Path target = dir.resolve("t.bin");
        assertThat(folder.fetch(contracts.resolve("lease.pdf").toUri(), target, 1000, access.guard("contracts")).bytes())
                .isEqualTo(14);
    }

    /**
     * A file URI under the cap whose path the file system refuses (a name over its bound, a file used as a folder) is
     * permanent_input/invalid_uri naming the reason, not an unclassified I/O failure; outside the roots, uri_not_allowed.
     */
    @Test
    void shouldRefuseAPathTheFileSystemRefusesAsAnInvalidUri() {
        for (URI uri : new URI[] {contracts.resolve("a".repeat(3000) + ".pdf").toUri(),
                contracts.resolve("lease.pdf").resolve("inside.pdf").toUri()}) {
            assertThatThrownBy(() -> access.check("contracts", uri)).as(uri.toString().substring(0, 60))
                    .isInstanceOfSatisfying(PermanentInputException.class, e -> {
                        assertThat(e.reasonCode()).isEqualTo("invalid_uri");
                        assertThat(e.getMessage()).contains("the file system refuses").hasSizeLessThan(500);
                    });
        }
        assertRefusedUnread("contracts", URI.create("file:///etc/" + "a".repeat(3000)));
    }

    /** Names beginning with _ are reserved: no configuration may name such a source. */
    @Test
    void shouldRefuseToConfigureAReservedSourceName() {
        Properties p = new Properties();
        p.setProperty("sources._invalid_messages.file-roots", dir.toString());
        assertThatThrownBy(() -> SourceAccess.fromProperties(p)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sources._invalid_messages.file-roots").hasMessageContaining("reserved");
    }

    @Test
    void shouldRefuseEtcPasswd() {
        assertRefusedUnread("contracts", URI.create("file:///etc/passwd"));
    }

    @Test
    void shouldRefuseADotDotPathOutOfTheRoot() {
        assertRefusedUnread("contracts", URI.create(contracts.toUri() + "../hr/salaries.pdf"));
        assertRefusedUnread("contracts", URI.create(contracts.toUri() + "2026/../../hr/salaries.pdf"));
    }

    @Test
    void shouldRefuseASymlinkOutOfTheRoot() throws Exception {
        Path link = Files.createSymbolicLink(contracts.resolve("innocent.pdf"), hr.resolve("salaries.pdf"));
        Path dirLink = Files.createSymbolicLink(contracts.resolve("linked"), Path.of("/etc"));
        assertRefusedUnread("contracts", link.toUri());
        assertRefusedUnread("contracts", dirLink.resolve("passwd").toUri());
    }

    @Test
    void shouldRefuseAUriInAnotherSourcesRoot() {
        assertRefusedUnread("contracts", hr.resolve("salaries.pdf").toUri());
        assertThat(access.guard("hr")).isNotNull();
    }

    @Test
    void shouldRefuseAnUnknownSourceBeforeLookingAtTheUri() {
        assertThatThrownBy(() -> access.guard("nobody"))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("unknown_source"));
        assertThatThrownBy(() -> folder.head(contracts.resolve("lease.pdf").toUri(), access.guard("payroll\n")))
                .isInstanceOf(PermanentInputException.class).hasMessageContaining("payroll\\n");
    }

    @Test
    void shouldNotTellWhetherAFileOutsideTheRootsExists() throws Exception {
        assertRefusedUnread("contracts", dir.resolve("nowhere/missing.pdf").toUri());
        assertThatThrownBy(() -> access.check("contracts", contracts.resolve("missing.pdf").toUri()))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void shouldCallAMalformedFileUriPermanentInput() {
        assertThatThrownBy(() -> access.check("contracts", URI.create("file://otherhost/srv/a.pdf")))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("invalid_uri"));
        assertThatThrownBy(() -> folder.fetch(URI.create("file:/srv/a.pdf?x=1"), dir.resolve("t"), 10, UriGuard.UNCHECKED))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("invalid_uri"));
    }

    @Test
    void shouldRefuseASchemeTheSourceHasNoRootsFor() {
        assertThatThrownBy(() -> access.check("contracts", URI.create("https://docs.example.com/a.pdf")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
        assertThatThrownBy(() -> access.check("site", contracts.resolve("lease.pdf").toUri()))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
    }

    @Test
    void shouldRefuseLoopbackUnlessTheSourceAllowsInternalAddresses() throws Exception {
        // allowed by prefix, refused by address: the source did not allow internal addresses
        assertThatThrownBy(() -> access.check("site", URI.create("http://127.0.0.1:8080/public/a.pdf")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"))
                .hasMessageContaining("internal address 127.0.0.1");
        assertThat(access.check("lab", URI.create("http://127.0.0.1:8080/a.pdf"))).isNotNull();
    }

    @Test
    void shouldRefuseALoopbackPortTheSourceDoesNotName() {
        assertThatThrownBy(() -> access.check("lab", URI.create("http://127.0.0.1:5432/")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
        assertThatThrownBy(() -> access.check("lab", URI.create("http://localhost:8080/")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
        assertThatThrownBy(() -> access.check("lab", URI.create("https://127.0.0.1:8080/")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
    }

    @Test
    void shouldMatchPathPrefixesAfterNormalising() {
        assertThatThrownBy(() -> access.check("site", URI.create("http://127.0.0.1:8080/private/a.pdf")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
        assertThatThrownBy(() -> access.check("site", URI.create("http://127.0.0.1:8080/public/../admin")))
                .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
    }

    @Test
    void shouldRefuseEncodedTraversalOutOfAPrefix() throws Exception {
        for (String path : new String[] {"/public/%2e%2e/admin", "/public/%2E%2E/admin", "/public/..%2fadmin",
                "/public/%2E%2E%2Fadmin", "/public/.%2e/admin", "/public/..%5cadmin", "/public/..;/admin"}) {
            assertThatThrownBy(() -> access.check("lab", URI.create("http://127.0.0.1:8080" + path))).as(path)
                    .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"));
        }
        // decoded as a server decodes it: %70 is 'p'
        assertThat(access.check("lab", URI.create("http://127.0.0.1:8080/%70ublic/a.pdf"))).isNotNull();
    }

    @Test
    void shouldRefuseAPrefixThatHoldsADotSegmentAtStartUp() {
        Properties p = new Properties();
        p.setProperty("sources.x.http-allow", "http://example.com/docs/%2e%2e/");
        assertThatThrownBy(() -> SourceAccess.fromProperties(p)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sources.x.http-allow").hasMessageContaining("dot segment");
    }

    @Test
    void shouldResolveOnceAndReturnTheCheckedAddress() throws Exception {
        java.util.concurrent.atomic.AtomicInteger lookups = new java.util.concurrent.atomic.AtomicInteger();
        Properties p = new Properties();
        p.setProperty("sources.web.http-allow", "https://docs.example.com/");
        SourceAccess web = SourceAccess.fromProperties(p).resolvingWith(host -> {
            lookups.incrementAndGet();
            return new java.net.InetAddress[] {java.net.InetAddress.getByName("93.184.216.34")};
        });
        HttpTarget target = web.guard("web").checkHttp(URI.create("https://docs.example.com/a.pdf"));
        assertThat(target.address().getHostAddress()).isEqualTo("93.184.216.34");
        assertThat(target.uri()).isEqualTo(URI.create("https://docs.example.com/a.pdf"));
        assertThat(lookups).hasValue(1);
    }

    @Test
    void shouldRefuseANameResolvingToAnInternalAddressCarriedInIpv6() throws Exception {
        Properties p = new Properties();
        p.setProperty("sources.web.http-allow", "https://docs.example.com/");
        for (String answer : new String[] {"::ffff:169.254.169.254", "::127.0.0.1", "64:ff9b::7f00:1", "2002:a9fe:a9fe::1",
                "2001:0:5db8:d822:0:0:80ff:fffe"}) {
            java.net.InetAddress address = java.net.InetAddress.getByName(answer);
            UriGuard guard = SourceAccess.fromProperties(p).resolvingWith(host -> new java.net.InetAddress[] {address})
                    .guard("web");
            assertThatThrownBy(() -> guard.checkHttp(URI.create("https://docs.example.com/a.pdf"))).as(answer)
                    .satisfies(e -> assertThat(reason(e)).isEqualTo("uri_not_allowed"))
                    .hasMessageContaining("internal address");
        }
    }

    @Test
    void shouldRefuseAMissingRootAtStartUp() {
        Properties p = new Properties();
        p.setProperty("sources.x.file-roots", dir.resolve("absent").toString());
        assertThatThrownBy(() -> SourceAccess.fromProperties(p)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sources.x.file-roots");
    }

    /** Refused with uri_not_allowed by the guard alone and by the connector, which writes nothing. */
    private void assertRefusedUnread(String source, URI uri) {
        assertThatThrownBy(() -> access.check(source, uri))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
        Path target = dir.resolve("target.bin");
        assertThatThrownBy(() -> folder.fetch(uri, target, 1_000_000, access.guard(source)))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
        assertThatThrownBy(() -> folder.head(uri, access.guard(source)))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
        assertThat(target).doesNotExist();
    }
}
