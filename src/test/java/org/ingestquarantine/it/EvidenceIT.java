package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.ingest.DocumentIndex;
import org.ingestquarantine.ingest.FolderConnector;
import org.ingestquarantine.ingest.HttpConnector;
import org.ingestquarantine.parse.HostilePdfs;
import org.ingestquarantine.parse.IndirectEncryptPdfs;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.Corpus;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ensures owner-only PDFs with indirect /Encrypt values are indexed with their text, and the evidence names
 * what happened: pages lost to extraction are recorded on the indexed document
 * and found by the operator's query, connector_version names the connector that served the document,
 * error_type names the root cause, and a refusal decided from HEAD keeps the ETag and Last-Modified it saw.
 */
class EvidenceIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String ETAG = "\"v-42\"";
    private static final String LAST_MODIFIED = "Wed, 21 Oct 2026 07:28:00 GMT";

    @TempDir
    Path data;

    @TempDir
    Path files;

    @Test
    void shouldRecordLostPagesConnectorRootCauseAndHeadVersion() throws Exception {
        HostilePdfs.secondPageLost(files.resolve("partial.pdf"));
        IndirectEncryptPdfs.ownerOnly(files.resolve("rc4.pdf"), false, "Owner only RC4 text survives");
        IndirectEncryptPdfs.ownerOnly(files.resolve("aes.pdf"), true, "Owner only AES text survives");
        Files.copy(Corpus.file("c0066.pdf"), files.resolve("html.pdf"));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            ex.getResponseHeaders().add("ETag", ETAG);
            ex.getResponseHeaders().add("Last-Modified", LAST_MODIFIED);
            ex.getResponseHeaders().add("Content-Length", "5000000");
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        server.start();
        try (TestPipeline pipeline = TestPipeline.start(data, Map.of(
                "sources.ev.file-roots", files.toString(),
                "sources.ev.http-allow", "http://127.0.0.1:" + server.getAddress().getPort(),
                "sources.ev.http-allow-private", "true",
                "ingest.max-bytes", "1000000"))) {
            String partial = pipeline.publishFile("ev", "partial.pdf", files.resolve("partial.pdf"));
            String rc4 = pipeline.publishFile("ev", "rc4.pdf", files.resolve("rc4.pdf"));
            String aes = pipeline.publishFile("ev", "aes.pdf", files.resolve("aes.pdf"));
            String html = pipeline.publishFile("ev", "html.pdf", files.resolve("html.pdf"));
            String big = pipeline.publish(new IngestMessage("ev", "big.pdf",
                    URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/big.pdf"), null, null, null));

            assertThat(pipeline.awaitOutcome(partial, WAIT)).isEqualTo("indexed");
            assertThat(pipeline.app().bean("documentIndex", DocumentIndex.class).partiallyIndexed("ev"))
                    .containsExactly(Map.entry("partial.pdf", List.of(2)));

            // owner-password-only files whose /Encrypt values are indirect objects: indexed with their text
            assertThat(pipeline.awaitOutcome(rc4, WAIT)).isEqualTo("indexed");
            assertThat(pipeline.awaitOutcome(aes, WAIT)).isEqualTo("indexed");
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM chunks WHERE source = 'ev' AND doc_id = ?"
                    + " AND text LIKE '%RC4 text survives%'", "rc4.pdf")).isEqualTo(1);
            assertThat(SqlCount.of(pipeline.dataSource(), "SELECT count(*) FROM chunks WHERE source = 'ev' AND doc_id = ?"
                    + " AND text LIKE '%AES text survives%'", "aes.pdf")).isEqualTo(1);

            assertThat(pipeline.awaitOutcome(html, WAIT)).isEqualTo("quarantined");
            QuarantineRecord notPdf = pipeline.assertQuarantinedOnce(html, "ev", "html.pdf", ErrorClass.PERMANENT_INPUT,
                    "not_pdf");
            assertThat(notPdf.connectorVersion()).isEqualTo(FolderConnector.VERSION);
            assertThat(notPdf.errorType()).endsWith("NotPdfException");
            assertThat(notPdf.errorMessage()).startsWith("NotPdfException: ");

            assertThat(pipeline.awaitOutcome(big, WAIT)).isEqualTo("quarantined");
            QuarantineRecord tooLarge = pipeline.assertQuarantinedOnce(big, "ev", "big.pdf", ErrorClass.PERMANENT_INPUT,
                    "too_large");
            assertThat(tooLarge.connectorVersion()).isEqualTo(HttpConnector.VERSION);
            assertThat(tooLarge.sourceVersion()).isEqualTo(ETAG);
            assertThat(tooLarge.sourceUpdatedAt()).isEqualTo(Instant.parse("2026-10-21T07:28:00Z"));
        } finally {
            server.stop(0);
        }
    }
}
