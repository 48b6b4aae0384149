package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.ingestquarantine.delivery.ErrorTaxonomy;
import org.ingestquarantine.failure.Classification;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.failure.ErrorClassifier;
import org.ingestquarantine.failure.PermanentInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ensures every HTTP fetch is bounded in time and size and that wire failures end transient, against a real misbehaving server. */
class HttpConnectorTest {

    private static final HttpTimeouts SMALL = new HttpTimeouts(Duration.ofSeconds(2), Duration.ofMillis(500),
            Duration.ofSeconds(2), 3);
    private static final ErrorClassifier CLASSIFIER = ErrorTaxonomy.standard();

    @TempDir
    Path dir;

    private final HttpConnector connector = new HttpConnector("http", SMALL);

    private Path target() {
        return dir.resolve("doc.bin");
    }

    private static Classification classify(Throwable t) {
        return CLASSIFIER.classify(t);
    }

    @Test
    void shouldFetchAHealthyDocument() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> RawHttpServer.write(out,
                "HTTP/1.1 200 OK\r\nContent-Length: 9\r\nETag: \"v1\"\r\nConnection: close\r\n\r\n%PDF-1.4\n"))) {
            FetchedDocument doc = connector.fetch(URI.create(server.url("/a.pdf")), target(), 1000, UriGuard.UNCHECKED);
            assertThat(doc.bytes()).isEqualTo(9);
            assertThat(doc.sourceVersion()).isEqualTo("\"v1\"");
            assertThat(Files.readString(target())).isEqualTo("%PDF-1.4\n");
        }
    }

    @Test
    void shouldEndABodyThatStallsAfter100BytesAsTransientTimeoutWithinTheIdleTimeout() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(100));
            Thread.sleep(30_000);
        })) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> connector.fetch(URI.create(server.url("/stall")), target(), 1_000_000, UriGuard.UNCHECKED))
                    .satisfies(e -> assertThat(classify(e)).extracting(Classification::errorClass, Classification::reasonCode)
                            .containsExactly(ErrorClass.TRANSIENT, "timeout"));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SMALL.idle().plusMillis(1500));
        }
    }

    @Test
    void shouldEndADrippingBodyAtTheBodyDeadline() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
            for (int i = 0; i < 1000; i++) {
                RawHttpServer.write(out, "x");
                Thread.sleep(SMALL.idle().toMillis() / 2);
            }
        })) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> connector.fetch(URI.create(server.url("/drip")), target(), 1_000_000, UriGuard.UNCHECKED))
                    .satisfies(e -> assertThat(classify(e)).extracting(Classification::errorClass, Classification::reasonCode)
                            .containsExactly(ErrorClass.TRANSIENT, "timeout"));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(took).isGreaterThanOrEqualTo(SMALL.bodyDeadline().minusMillis(100))
                    .isLessThan(SMALL.bodyDeadline().plusMillis(1500));
        }
    }

    @Test
    void shouldEndAStalledFetchPromptlyWhenItsThreadIsInterrupted() throws Exception {
        HttpConnector patient = new HttpConnector("http", new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(60),
                Duration.ofSeconds(120), 3));
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(100));
            Thread.sleep(30_000);
        })) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
            Thread worker = new Thread(() -> {
                try {
                    patient.fetch(URI.create(server.url("/stall")), target(), 1_000_000, UriGuard.UNCHECKED);
                } catch (Throwable t) {
                    failure.set(t);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
            worker.start();
            Thread.sleep(500);
            long start = System.nanoTime();
            worker.interrupt();
            worker.join(5_000);
            assertThat(worker.isAlive()).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            assertThat(classify(failure.get())).extracting(Classification::errorClass, Classification::reasonCode)
                    .containsExactly(ErrorClass.TRANSIENT, "interrupted");
            assertThat(stillInterrupted.get()).isTrue();
        }
    }

    @Test
    void shouldEndStalledRequestsAtOnceWhenCancelledAndSendNoneAfterwards() throws Exception {
        FetchCancellation cancellation = new FetchCancellation();
        HttpConnector patient = new HttpConnector("http", new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(60),
                Duration.ofSeconds(120), 3), cancellation);
        java.util.concurrent.atomic.AtomicInteger requests = new java.util.concurrent.atomic.AtomicInteger();
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            requests.incrementAndGet();
            if (head.contains("/headers")) {
                Thread.sleep(30_000);
            }
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + "x".repeat(100));
            Thread.sleep(30_000);
        })) {
            java.util.List<AtomicReference<Throwable>> failures = new java.util.ArrayList<>();
            java.util.List<Thread> workers = new java.util.ArrayList<>();
            for (String path : new String[] {"/body", "/headers"}) {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                failures.add(failure);
                Thread worker = new Thread(() -> {
                    try {
                        patient.fetch(URI.create(server.url(path)), dir.resolve(path.substring(1)), 1_000_000,
                                UriGuard.UNCHECKED);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                workers.add(worker);
                worker.start();
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> cancellation.inFlight() == 2);
            Thread.sleep(300);
            long start = System.nanoTime();
            cancellation.cancelAll();
            for (Thread worker : workers) {
                worker.join(5_000);
                assertThat(worker.isAlive()).isFalse();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            for (AtomicReference<Throwable> failure : failures) {
                assertThat(failure.get()).isInstanceOf(org.ingestquarantine.failure.ShutdownException.class);
                assertThat(classify(failure.get())).extracting(Classification::errorClass, Classification::reasonCode)
                        .containsExactly(ErrorClass.TRANSIENT, "shutdown");
            }
            assertThat(cancellation.inFlight()).isZero();
            int sent = requests.get();
            assertThatThrownBy(() -> patient.head(URI.create(server.url("/later")), UriGuard.UNCHECKED))
                    .isInstanceOf(org.ingestquarantine.failure.ShutdownException.class);
            assertThat(requests).as("requests sent after the cancellation").hasValue(sent);
        }
    }

    @Test
    void shouldTreatATruncatedBodyAsTransient() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) ->
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + "x".repeat(100)))) {
            assertThatThrownBy(() -> connector.fetch(URI.create(server.url("/short")), target(), 1_000_000, UriGuard.UNCHECKED))
                    .satisfies(e -> assertThat(classify(e)).extracting(Classification::errorClass, Classification::reasonCode)
                            .containsExactly(ErrorClass.TRANSIENT, "truncated_body"));
        }
    }

    @Test
    void shouldTreatAConnectionResetAsTransient() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + "x".repeat(100));
            s.setSoLinger(true, 0);
            s.close();
        })) {
            assertThatThrownBy(() -> connector.fetch(URI.create(server.url("/reset")), target(), 1_000_000, UriGuard.UNCHECKED))
                    .satisfies(e -> assertThat(classify(e).errorClass()).isEqualTo(ErrorClass.TRANSIENT))
                    .satisfies(e -> assertThat(classify(e).reasonCode()).isIn("connection_reset", "truncated_body"));
        }
    }

    @Test
    void shouldTreatAPeerThatDoesNotSpeakHttpAsTransient() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) ->
                RawHttpServer.write(out, "SSH-2.0-OpenSSH_9.6\r\n\u0000\u0001garbage\r\n\r\n"))) {
            assertThatThrownBy(() -> connector.head(URI.create(server.url("/x")), UriGuard.UNCHECKED))
                    .satisfies(e -> assertThat(classify(e)).extracting(Classification::errorClass, Classification::reasonCode)
                            .containsExactly(ErrorClass.TRANSIENT, "not_http"));
        }
    }

    @Test
    void shouldAskWithGetWhenHeadIsRefusedAndEnforceTheSizeLimitWhileReading() throws Exception {
        String big = "y".repeat(5000);
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> {
            if (head.startsWith("HEAD")) {
                RawHttpServer.write(out, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n");
            } else {
                // no Content-Length: the size is known only by reading
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nETag: \"g\"\r\nConnection: close\r\n\r\n" + big);
            }
        })) {
            SourceHead head = connector.head(URI.create(server.url("/nohead")), UriGuard.UNCHECKED);
            assertThat(head.etag()).isEqualTo("\"g\"");
            assertThat(head.contentLength()).isEqualTo(-1);
            assertThatThrownBy(() -> connector.fetch(URI.create(server.url("/nohead")), target(), 1000, UriGuard.UNCHECKED))
                    .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("too_large"));
        }
    }

    @Test
    void shouldFollowARedirectWithinTheSourcesPrefixes() throws Exception {
        try (RawHttpServer server = new RawHttpServer((head, s, out) -> RawHttpServer.write(out, head.startsWith("GET /old")
                ? "HTTP/1.1 302 Found\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n"
                : "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nnew"))) {
            UriGuard guard = access("http://127.0.0.1:" + server.port()).guard("site");
            FetchedDocument doc = connector.fetch(URI.create(server.url("/old")), target(), 1000, guard);
            assertThat(Files.readString(target())).isEqualTo("new");
            assertThat(doc.bytes()).isEqualTo(3);
        }
    }

    @Test
    void shouldRefuseARedirectToAnAddressTheSourceMayNotReachBeforeConnecting() throws Exception {
        try (RawHttpServer internal = new RawHttpServer((head, s, out) ->
                RawHttpServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret"));
             RawHttpServer allowed = new RawHttpServer((head, s, out) -> RawHttpServer.write(out,
                     "HTTP/1.1 307 Temporary Redirect\r\nLocation: " + internal.url("/admin") + "\r\nContent-Length: 0\r\n\r\n"))) {
            UriGuard guard = access("http://127.0.0.1:" + allowed.port()).guard("site");
            assertThatThrownBy(() -> connector.fetch(URI.create(allowed.url("/doc")), target(), 1000, guard))
                    .isInstanceOfSatisfying(PermanentInputException.class,
                            e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
            assertThatThrownBy(() -> connector.head(URI.create(allowed.url("/doc")), guard))
                    .isInstanceOfSatisfying(PermanentInputException.class,
                            e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
            assertThat(allowed.connections()).isEqualTo(2);
            assertThat(internal.connections()).isZero();
            assertThat(target()).satisfiesAnyOf(p -> assertThat(p).doesNotExist(), p -> assertThat(p).isEmptyFile());
        }
    }

    @Test
    void shouldRefuseARedirectToALinkLocalAddressWhenTheSourceAllowsNoInternalAddresses() throws Exception {
        // the first hop is the loopback test server, so the source must allow internal addresses for it; a
        // second source without that allowance shows the redirect target refused by address alone
        Properties p = new Properties();
        p.setProperty("sources.public.http-allow", "http://169.254.169.254");
        UriGuard guard = SourceAccess.fromProperties(p).guard("public");
        assertThatThrownBy(() -> guard.check(URI.create("http://169.254.169.254/latest/meta-data/")))
                .isInstanceOfSatisfying(PermanentInputException.class, e -> assertThat(e.reasonCode()).isEqualTo("uri_not_allowed"));
    }

    private static SourceAccess access(String prefix) {
        Properties p = new Properties();
        p.setProperty("sources.site.http-allow", prefix);
        p.setProperty("sources.site.http-allow-private", "true");
        return SourceAccess.fromProperties(p);
    }
}
