package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.ingestquarantine.app.OperatorRuntime;
import org.ingestquarantine.db.EmbeddedPostgresService;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.operator.Drain;
import org.ingestquarantine.operator.DrainReport;
import org.ingestquarantine.parse.DocumentParser;
import org.ingestquarantine.pipeline.IngestMessage;
import org.ingestquarantine.quarantine.QuarantineAttempt;
import org.ingestquarantine.quarantine.QuarantineRecord;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.ingestquarantine.testsupport.TextPdf;
import org.ingestquarantine.web.OperatorJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production mode's flow for an HTTP source fed by producers through {@code run} (no {@code base-uri}, no folder
 * an ingest counted): the record keeps the URI its message named once the source admitted it, so an operator's drain
 * in another runtime re-fetches exactly that URI (counted at a real HTTP server on loopback) and closes the record;
 * a URI the source refused is not kept; {@code show --json} shows the URI, and erasure leaves it in no table.
 */
class RecordedSourceUriIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path data;

    private HttpServer server;
    private final Map<String, byte[]> served = new ConcurrentHashMap<>();
    private final List<String> requests = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::serve);
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private void serve(HttpExchange x) throws IOException {
        requests.add(x.getRequestMethod() + " " + x.getRequestURI());
        byte[] body = served.get(x.getRequestURI().getPath());
        boolean head = "HEAD".equals(x.getRequestMethod());
        if (body == null) {
            x.sendResponseHeaders(404, -1);
        } else {
            x.getResponseHeaders().set("Content-Type", "application/pdf");
            x.sendResponseHeaders(200, head ? -1 : body.length);
            if (!head) {
                try (OutputStream out = x.getResponseBody()) {
                    out.write(body);
                }
            }
        }
        x.close();
    }

    @Test
    void shouldDrainARunFedHttpRecordFromExactlyItsUriAndEraseIt() throws Exception {
        String origin = "http://127.0.0.1:" + server.getAddress().getPort();
        String uri = origin + "/feed/2025/report-7731.pdf?rev=3";
        served.put("/feed/2025/report-7731.pdf", "GIF89a, not a PDF at all".getBytes(StandardCharsets.US_ASCII));
        Map<String, String> sources = Map.of("sources.feed.http-allow", origin + "/feed/",
                "sources.feed.http-allow-private", "true");
        try (TestPipeline pipeline = TestPipeline.start(data, sources)) {
            String key = pipeline.publish(new IngestMessage("feed", "report.pdf", URI.create(uri), null, null, null));
            String refusedKey = pipeline.publish(new IngestMessage("feed", "outside.pdf",
                    URI.create(origin + "/private/outside-7731.pdf"), null, null, null));
            assertThat(pipeline.awaitOutcome(key, WAIT)).isEqualTo("quarantined");
            assertThat(pipeline.awaitOutcome(refusedKey, WAIT)).isEqualTo("quarantined");

            QuarantineRecord record = pipeline.assertQuarantinedOnce(key, "feed", "report.pdf",
                    ErrorClass.PERMANENT_INPUT, "not_pdf");
            assertThat(record.sourceUri()).as("the URI the message named, as its source admitted it").isEqualTo(uri);
            assertThat(pipeline.store().attempts(record.dlqId())).extracting(QuarantineAttempt::sourceUri)
                    .containsExactly(uri);
            QuarantineRecord refused = pipeline.assertQuarantinedOnce(refusedKey, "feed", "outside.pdf",
                    ErrorClass.PERMANENT_INPUT, "uri_not_allowed");
            assertThat(refused.sourceUri()).as("a refused URI is not kept as one to fetch").isNull();
            assertThat(pipeline.store().attempts(refused.dlqId())).extracting(QuarantineAttempt::sourceUri)
                    .containsOnlyNulls();
            assertThat(requests).as("the refused URI was never asked").noneMatch(r -> r.contains("/private/"));

            served.put("/feed/2025/report-7731.pdf", TextPdf.of("the producer fixed the report"));
            requests.clear();
            try (OperatorRuntime operator = OperatorRuntime.open("embedded", data, operatorProperties(pipeline, sources));
                 DocumentParser parser = operator.openParser()) {
                JsonNode shown = JSON.readTree(OperatorJson.write(operator.service().show("feed/report.pdf")));
                assertThat(shown.at("/record/source_uri").asText()).isEqualTo(uri);
                assertThat(shown.at("/attempts/0/source_uri").asText()).isEqualTo(uri);

                DrainReport report = operator.drain(parser).run(new Drain.Request(record.errorFingerprint(), null,
                        null, 5, 20, "test"), (done, of) -> { });

                assertThat(report.outcomes()).as("%s", report.notAttempted())
                        .isEqualTo(Map.of("repaired_content_changed", 1L));
                assertThat(requests).as("asked at the server: exactly the recorded URI")
                        .containsExactly("HEAD /feed/2025/report-7731.pdf?rev=3", "GET /feed/2025/report-7731.pdf?rev=3");
                assertThat(SqlCount.tablesHolding(pipeline.dataSource(), "report-7731")).as("before erasure")
                        .contains("quarantine", "quarantine_attempt");

                operator.dispositions().erase("feed", "report.pdf");

                assertThat(SqlCount.tablesHolding(pipeline.dataSource(), "report-7731"))
                        .as("tables with a row naming the URI after erasure").isEmpty();
                JsonNode erased = JSON.readTree(OperatorJson.write(operator.service().show("feed/report.pdf")));
                assertThat(erased.at("/record/source_uri").isNull()).as("%s", erased.at("/record")).isTrue();
                assertThat(erased.at("/attempts/0/source_uri").isNull()).isTrue();
            }
        }
    }

    /** An operator's runtime on the consumer's database (external mode: no lock), its sources configured alike. */
    private static Map<String, String> operatorProperties(TestPipeline pipeline, Map<String, String> sources) {
        EmbeddedPostgresService pg = pipeline.postgres();
        Map<String, String> p = new java.util.HashMap<>(TestPipeline.testProperties());
        p.putAll(sources);
        p.put("db.mode", "external");
        p.put("db.url", pg.jdbcUrl());
        p.put("db.user", pg.user());
        p.put("db.password", pg.password());
        return p;
    }
}
