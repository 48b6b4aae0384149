package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.failure.PermanentInputException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.testsupport.FolderHttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures the connector requests only what its guard admitted, and only from the address the guard checked: encoded
 * traversal out of a prefix is refused directly and by redirect against a real server holding a secret beside the
 * prefix, and a name whose DNS answer changes after the check (rebinding) is not followed.
 */
class HttpConnectorTrustTest {

    private static final HttpTimeouts SMALL = new HttpTimeouts(Duration.ofSeconds(2), Duration.ofMillis(500),
            Duration.ofSeconds(2), 3);
    /** The encoded forms of "../" a hostile user sent past the prefix check. */
    private static final List<String> TRAVERSALS = List.of("%2e%2e/secret.pdf", "..%2fsecret.pdf", "%2E%2E%2Fsecret.pdf");
    /** TEST-NET-1 (RFC 5737): public-looking, never routed, so a connection to it fails without leaving the host. */
    private static final String PUBLIC_LOOKING = "192.0.2.1";

    @TempDir
    Path dir;

    private final HttpConnector connector = new HttpConnector("http", SMALL);

    @Test
    void shouldRefuseEncodedTraversalOutOfThePrefixDirectlyAndByRedirect() throws Exception {
        Path site = Files.createDirectories(dir.resolve("site/public")).getParent();
        Files.writeString(site.resolve("public/a.pdf"), "%PDF-1.4 public");
        Files.writeString(site.resolve("secret.pdf"), "%PDF-1.4 secret");
        try (FolderHttpServer server = FolderHttpServer.serve(site);
             RawHttpServer redirector = new RawHttpServer((head, s, out) -> RawHttpServer.write(out,
                     "HTTP/1.1 302 Found\r\nLocation: " + server.base() + "public/"
                             + TRAVERSALS.get(head.charAt("GET /r/".length()) - '0') + "\r\nContent-Length: 0\r\n\r\n"))) {
            Properties p = new Properties();
            p.setProperty("sources.site.http-allow", server.base() + "public/, http://127.0.0.1:" + redirector.port() + "/r/");
            p.setProperty("sources.site.http-allow-private", "true");
            UriGuard guard = SourceAccess.fromProperties(p).guard("site");
            Path target = dir.resolve("doc.bin");

            connector.fetch(URI.create(server.base() + "public/a.pdf"), target, 1000, guard);
            assertThat(Files.readString(target)).isEqualTo("%PDF-1.4 public");
            int served = server.requests();
            Files.delete(target);
            for (int i = 0; i < TRAVERSALS.size(); i++) {
                URI direct = URI.create(server.base() + "public/" + TRAVERSALS.get(i));
                assertThatThrownBy(() -> connector.fetch(direct, target, 1000, guard)).as(direct.toString())
                        .isInstanceOfSatisfying(PermanentInputException.class,
                                e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
                assertThatThrownBy(() -> connector.head(direct, guard)).as(direct.toString())
                        .isInstanceOfSatisfying(PermanentInputException.class,
                                e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
                URI redirect = URI.create(redirector.url("/r/" + i));
                assertThatThrownBy(() -> connector.fetch(redirect, target, 1000, guard)).as("redirect to %s", direct)
                        .isInstanceOfSatisfying(PermanentInputException.class,
                                e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
            }
            assertThat(redirector.connections()).as("redirects asked").isEqualTo(TRAVERSALS.size());
            assertThat(server.requests()).as("requests that reached the server after the allowed one").isEqualTo(served);
            assertThat(target).doesNotExist();
        }
    }

    @Test
    void shouldConnectToTheAddressTheGuardCheckedAndNotLookTheNameUpAgain() throws Exception {
        List<String> heads = new CopyOnWriteArrayList<>();
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            heads.add(head);
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\npinned");
        })) {
            String origin = "http://docs.rebind.test:" + server.port();
            AtomicInteger lookups = new AtomicInteger();
            // the first answer is the loopback server; any later one leads nowhere
            HostResolver rebinding = host -> new InetAddress[] {
                InetAddress.getByName(lookups.incrementAndGet() == 1 ? "127.0.0.1" : PUBLIC_LOOKING)};
            Properties p = new Properties();
            p.setProperty("sources.lab.http-allow", origin);
            p.setProperty("sources.lab.http-allow-private", "true");
            UriGuard guard = SourceAccess.fromProperties(p).resolvingWith(rebinding).guard("lab");

            Path target = dir.resolve("doc.bin");
            FetchedDocument doc = connector.fetch(URI.create(origin + "/a.pdf"), target, 1000, guard);
            assertThat(Files.readString(target)).isEqualTo("pinned");
            assertThat(doc.bytes()).isEqualTo(6);
            assertThat(lookups).as("lookups of the name").hasValue(1);
            assertThat(server.connections()).isEqualTo(1);
            // the name the message gave is what the server is told, not the address connected to
            assertThat(heads).singleElement().asString().startsWith("GET /a.pdf HTTP/1.1\r\n")
                    .containsIgnoringCase("\r\nHost: docs.rebind.test:" + server.port() + "\r\n");
        }
    }

    @Test
    void shouldNotFollowANameThatRebindsToLoopbackAfterItsPublicAnswerWasChecked() throws Exception {
        try (RawHttpServer internal = new RawHttpServer((head, s, out) ->
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret"))) {
            String origin = "http://rebind.example:" + internal.port();
            AtomicInteger lookups = new AtomicInteger();
            // a DNS answer with a zero TTL that alternates: public-looking, then loopback, then public again...
            HostResolver rebinding = host -> new InetAddress[] {
                InetAddress.getByName(lookups.incrementAndGet() % 2 == 1 ? PUBLIC_LOOKING : "127.0.0.1")};
            Properties p = new Properties();
            p.setProperty("sources.web.http-allow", origin);
            UriGuard guard = SourceAccess.fromProperties(p).resolvingWith(rebinding).guard("web");
            Path target = dir.resolve("doc.bin");
            for (int attempt = 1; attempt <= 5; attempt++) {
                Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() ->
                        connector.fetch(URI.create(origin + "/internal.pdf"), target, 1000, guard));
                if (attempt % 2 == 1) {
                    // checked public, connected public: that address answers nothing here
                    assertThat(failure).as("attempt %d", attempt).isInstanceOf(TransientException.class);
                } else {
                    assertThat(failure).as("attempt %d", attempt).isInstanceOfSatisfying(PermanentInputException.class,
                            e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
                }
            }
            assertThat(lookups).as("one lookup per attempt").hasValue(5);
            assertThat(internal.connections()).as("connections to the internal server").isZero();
            assertThat(target).satisfiesAnyOf(t -> assertThat(t).doesNotExist(), t -> assertThat(t).isEmptyFile());
        }
    }
}
