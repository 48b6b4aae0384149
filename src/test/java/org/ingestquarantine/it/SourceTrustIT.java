package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.pipeline.RecordKey;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.FolderHttpServer;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures a message can make the pipeline read only where its source's roots allow (DESIGN.md §9): every URI
 * outside them, and every unknown source, is quarantined permanent_input on its one delivery without a byte
 * of the document read or stored (an unknown source's record, under _invalid_messages, keeps the message), and
 * another source's indexed document stays as it was.
 */
class SourceTrustIT {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path data;

    @TempDir
    Path files;

    private Path alphaRoot;
    private Path betaRoot;
    private Path outside;
    private HttpServer allowed;
    private HttpServer refused;
    private FolderHttpServer folder;
    private final AtomicInteger refusedRequests = new AtomicInteger();

    @BeforeEach
    void createSourcesAndServers() throws IOException {
        alphaRoot = Files.createDirectories(files.resolve("alpha"));
        betaRoot = Files.createDirectories(files.resolve("beta"));
        outside = Files.createDirectories(files.resolve("outside"));
        Files.copy(Corpus.file("c0007.pdf"), alphaRoot.resolve("alpha.pdf"));
        Files.copy(Corpus.file("c0018.pdf"), betaRoot.resolve("doc.pdf"));
        Files.copy(Corpus.file("c0048.pdf"), outside.resolve("secret.pdf"));
        Files.createSymbolicLink(alphaRoot.resolve("link.pdf"), outside.resolve("secret.pdf"));
        // served over HTTP: alpha may read /docs/public/, the secret lies beside it
        Path site = Files.createDirectories(files.resolve("site/public")).getParent();
        Files.copy(Corpus.file("c0048.pdf"), site.resolve("secret.pdf"));
        folder = FolderHttpServer.serve(site);

        refused = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        refused.createContext("/", ex -> {
            refusedRequests.incrementAndGet();
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        refused.start();
        allowed = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        allowed.createContext("/", ex -> {
            ex.getResponseHeaders().add("Location", "http://127.0.0.1:" + refused.getAddress().getPort() + "/x.pdf");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        allowed.createContext("/encoded/", ex -> {
            ex.getResponseHeaders().add("Location", folder.base() + "public/%2e%2e/secret.pdf");
            ex.sendResponseHeaders(302, -1);
            ex.close();
        });
        allowed.start();
    }

    @AfterEach
    void stopServers() {
        allowed.stop(0);
        refused.stop(0);
        folder.close();
    }

    @Test
    void shouldQuarantineEveryUriOutsideItsSourceUnreadAndLeaveTheOtherSourceUntouched() throws Exception {
        Map<String, String> props = new HashMap<>();
        props.put("sources.alpha.file-roots", alphaRoot.toString());
        props.put("sources.alpha.http-allow", "http://127.0.0.1:" + allowed.getAddress().getPort() + ", " + folder.base() + "public/");
        props.put("sources.alpha.http-allow-private", "true");
        props.put("sources.beta.file-roots", betaRoot.toString());
        try (TestPipeline pipeline = TestPipeline.start(data, props)) {
            String beta = pipeline.publishFile("beta", "doc.pdf", betaRoot.resolve("doc.pdf"));
            assertThat(pipeline.awaitOutcome(beta, WAIT)).isEqualTo("indexed");
            String betaBefore = documentRow(pipeline.dataSource(), "beta", "doc.pdf");

            Map<String, IngestMessage> hostile = new HashMap<>(Map.of(
                    "passwd", message("alpha", "passwd", URI.create("file:///etc/passwd")),
                    "dotdot", message("alpha", "dotdot", URI.create(alphaRoot.toUri() + "../outside/secret.pdf")),
                    "symlink", message("alpha", "symlink", alphaRoot.resolve("link.pdf").toUri()),
                    "other-root", message("alpha", "other-root", betaRoot.resolve("doc.pdf").toUri()),
                    // beta's own doc_id, with bytes from alpha's root: must not replace beta's document
                    "doc.pdf", message("beta", "doc.pdf", alphaRoot.resolve("alpha.pdf").toUri()),
                    "port", message("alpha", "port", URI.create("http://127.0.0.1:" + refused.getAddress().getPort() + "/x.pdf")),
                    "redirect", message("alpha", "redirect", URI.create("http://127.0.0.1:" + allowed.getAddress().getPort() + "/r.pdf"))));
            // encoded "../" past the prefix, which the server decodes: directly and by redirect
            for (String[] t : new String[][] {{"encoded-dots", "%2e%2e/"}, {"encoded-slash", "..%2f"}, {"encoded-upper", "%2E%2E%2F"}}) {
                hostile.put(t[0], message("alpha", t[0], URI.create(folder.base() + "public/" + t[1] + "secret.pdf")));
            }
            hostile.put("encoded-redirect", message("alpha", "encoded-redirect",
                    URI.create("http://127.0.0.1:" + allowed.getAddress().getPort() + "/encoded/r.pdf")));
            Map<String, String> keys = new HashMap<>();
            hostile.forEach((docId, m) -> keys.put(docId, pipeline.publish(m)));
            String unknown = pipeline.publish(message("nobody", "any.pdf", alphaRoot.resolve("alpha.pdf").toUri()));

            for (Map.Entry<String, String> e : keys.entrySet()) {
                assertThat(pipeline.awaitOutcome(e.getValue(), WAIT)).as(e.getKey()).isEqualTo("quarantined");
                if ("doc.pdf".equals(e.getKey())) {
                    // beta's indexed document gets no open record no drain could close (it would keep no URI):
                    // the message failed, recorded under the reserved source with the message as its payload
                    QuarantineRecord r = pipeline.assertQuarantinedOnce(e.getValue(), RecordKey.INVALID_MESSAGES_SOURCE,
                            e.getValue(), ErrorClass.PERMANENT_INPUT, "uri_not_allowed");
                    assertThat(r.sourceUri()).isNull();
                    assertThat(pipeline.store().find("beta", "doc.pdf")).as("a record on beta's document").isEmpty();
                    continue;
                }
                String source = hostile.get(e.getKey()).source();
                QuarantineRecord r = pipeline.assertQuarantinedOnce(e.getValue(), source, e.getKey(),
                        ErrorClass.PERMANENT_INPUT, "uri_not_allowed");
                assertThat(r.payloadUri()).as("payload of %s", e.getKey()).isNull();
                assertThat(r.payloadSha256()).as("payload of %s", e.getKey()).isNull();
                // a refused URI is not kept as one to fetch; the redirect's message URI was admitted (its
                // redirect was refused), so its record keeps that one, checked again by any later fetch
                assertThat(r.sourceUri()).as("source_uri of %s", e.getKey())
                        .isEqualTo(e.getKey().endsWith("redirect") ? hostile.get(e.getKey()).uri().toString() : null);
            }
            assertThat(pipeline.awaitOutcome(unknown, WAIT)).isEqualTo("quarantined");
            // sources are configuration: the unknown one gets no rows; the message is kept as the record's payload
            QuarantineRecord r = pipeline.assertQuarantinedOnce(unknown, RecordKey.INVALID_MESSAGES_SOURCE, unknown,
                    ErrorClass.PERMANENT_INPUT, "unknown_source");
            assertThat(pipeline.store().find("nobody", "any.pdf")).isEmpty();
            assertThat(r.sourceUri()).isNull();

            assertThat(refusedRequests).as("requests that reached the refused server").hasValue(0);
            assertThat(folder.requests()).as("requests that reached the server beside the prefix").isZero();
            assertThat(documentRow(pipeline.dataSource(), "beta", "doc.pdf")).as("beta's document").isEqualTo(betaBefore);
            assertThat(documentCount(pipeline.dataSource())).as("only beta's document is indexed").isEqualTo(1);
            assertThat(workFiles()).as("work files left").isEmpty();
        }
    }

    @Test
    void shouldQuarantineAFifoAndAHardLinkInsideTheRootUnreadWithoutHoldingAConsumer() throws Exception {
        Path fifo = alphaRoot.resolve("pipe.pdf");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).as("mkfifo").isZero();
        Files.createLink(alphaRoot.resolve("hard.pdf"), outside.resolve("secret.pdf"));
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of("sources.alpha.file-roots", alphaRoot.toString()))) {
            Map<String, String> keys = new HashMap<>();
            for (String docId : List.of("pipe.pdf", "hard.pdf")) {
                keys.put(docId, pipeline.publishFile("alpha", docId, alphaRoot.resolve(docId)));
            }
            String healthy = pipeline.publishFile("alpha", "alpha.pdf", alphaRoot.resolve("alpha.pdf"));
            // a FIFO opened for reading would hold its consumer until a writer came: this one is never written
            assertThat(pipeline.awaitOutcome(healthy, WAIT)).isEqualTo("indexed");
            Map<String, String> reasons = Map.of("pipe.pdf", "not_a_file", "hard.pdf", "hard_link");
            for (Map.Entry<String, String> e : keys.entrySet()) {
                assertThat(pipeline.awaitOutcome(e.getValue(), WAIT)).as(e.getKey()).isEqualTo("quarantined");
                QuarantineRecord r = pipeline.assertQuarantinedOnce(e.getValue(), "alpha", e.getKey(),
                        ErrorClass.PERMANENT_INPUT, reasons.get(e.getKey()));
                assertThat(r.payloadUri()).as("payload of %s", e.getKey()).isNull();
                assertThat(r.payloadSha256()).as("payload of %s", e.getKey()).isNull();
            }
            assertThat(documentCount(pipeline.dataSource())).as("only the healthy document is indexed").isEqualTo(1);
            assertThat(workFiles()).as("work files left").isEmpty();
        }
    }

    private static IngestMessage message(String source, String docId, URI uri) {
        return new IngestMessage(source, docId, uri, null, null, null);
    }

    private List<Path> workFiles() throws IOException {
        Path work = data.resolve("work");
        if (!Files.isDirectory(work)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(work)) {
            return s.toList();
        }
    }

    private static String documentRow(DataSource db, String source, String docId) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement(
                "SELECT source_version, content_sha256, indexed_at, chunk_count FROM documents WHERE source = ? AND doc_id = ?")) {
            s.setString(1, source);
            s.setString(2, docId);
            try (ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getInt(4);
            }
        }
    }

    private static long documentCount(DataSource db) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement("SELECT count(*) FROM documents");
             ResultSet rs = s.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
