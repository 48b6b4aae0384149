package org.ingestquarantine.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.ingestquarantine.failure.ErrorClass;
import org.ingestquarantine.testsupport.FreePort;
import org.ingestquarantine.testsupport.RoutesCopy;
import org.ingestquarantine.testsupport.SqlCount;
import org.ingestquarantine.testsupport.TestPipeline;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, the routes guide's "a second intake over HTTP" as written ({@code routes/examples/http-intake}) in a copy
 * of {@code routes/}, on the real application (embedded SQS and PostgreSQL) with Camel's HTTP server on: each message
 * POSTed is answered 202 with its delivery key and ends in one outcome, the same as a broker producer's (indexed, or
 * quarantined with its class's deliveries); a message whose URI lies outside its source's roots is quarantined
 * {@code uri_not_allowed} by the consumer's trust check, its server never asked; a body that is not JSON is answered
 * 400 and one over {@code camel.server.max-body-size} 413, neither published. No attempt is left open, and the
 * outcomes are the database's.
 */
class HttpIntakeIT {

    private static final Path EXAMPLE = Path.of("routes/examples/http-intake/http-intake.camel.yaml");
    private static final Path SAMPLES = Path.of("samples", "pdfs").toAbsolutePath();

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void shouldPublishWhatItIsPostedThroughTheConsumersOwnChecks() throws Exception {
        RoutesCopy routes = RoutesCopy.of(tmp).add("http-intake.camel.yaml", Files.readString(EXAMPLE));
        int port = FreePort.find();
        AtomicInteger asked = new AtomicInteger();
        HttpServer elsewhere = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        elsewhere.createContext("/", exchange -> {
            asked.incrementAndGet();
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
        });
        elsewhere.start();
        Map<String, String> p = new HashMap<>();
        p.put("iq.routes-dir", routes.folder().toAbsolutePath().toString());
        p.put("camel.server.enabled", "true");
        p.put("camel.server.port", Integer.toString(port));
        try (TestPipeline pipeline = TestPipeline.start(tmp.resolve("data"), p)) {
            URI intake = URI.create("http://127.0.0.1:" + port + "/intake");
            Map<String, String> keys = new LinkedHashMap<>();
            keys.put(published(intake, message("one.pdf", SAMPLES.resolve("01-text-one-page.pdf").toUri())), "one.pdf");
            keys.put(published(intake, message("three.pdf", SAMPLES.resolve("02-text-three-pages.pdf").toUri())), "three.pdf");
            keys.put(published(intake, message("truncated.pdf", SAMPLES.resolve("08-truncated.pdf").toUri())), "truncated.pdf");
            URI outside = URI.create("http://127.0.0.1:" + elsewhere.getAddress().getPort() + "/secret.pdf");
            keys.put(published(intake, message("outside.pdf", outside)), "outside.pdf");

            HttpResponse<String> notJson = post(intake, "source=it&doc_id=x.pdf");
            assertThat(notJson.statusCode()).as(notJson.body()).isEqualTo(400);
            assertThat(notJson.body()).startsWith("the body is not a JSON object");
            assertThat(post(intake, "[\"not\", \"an object\"]").statusCode()).isEqualTo(400);
            HttpResponse<String> tooLarge = post(intake, message("large.pdf", SAMPLES.resolve("01-text-one-page.pdf").toUri())
                    .replace("}", ",\"cursor\":\"" + "x".repeat(70_000) + "\"}"));
            assertThat(tooLarge.statusCode()).as("over camel.server.max-body-size").isEqualTo(413);
            HttpResponse<String> get = http.send(HttpRequest.newBuilder(intake).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).as("POST only").isEqualTo(405);

            Map<String, String> outcomes = new LinkedHashMap<>();
            keys.forEach((key, doc) -> outcomes.put(doc, pipeline.awaitOutcome(key, Duration.ofSeconds(90))));
            assertThat(outcomes).containsExactly(Map.entry("one.pdf", "indexed"), Map.entry("three.pdf", "indexed"),
                    Map.entry("truncated.pdf", "quarantined"), Map.entry("outside.pdf", "quarantined"));
            pipeline.assertQuarantinedOnce(key(keys, "truncated.pdf"), "it", "truncated.pdf", ErrorClass.AMBIGUOUS_PARSE, null);
            pipeline.assertQuarantinedOnce(key(keys, "outside.pdf"), "it", "outside.pdf", ErrorClass.PERMANENT_INPUT,
                    "uri_not_allowed");
            assertThat(asked).as("requests to the server outside the source's roots").hasValue(0);
            assertThat(pipeline.settlements()).as("one outcome per message published, none for the refused bodies")
                    .isEqualTo(keys.size());

            DataSource db = pipeline.dataSource();
            assertThat(SqlCount.of(db, "SELECT count(*) FROM attempt_journal WHERE closed_at IS NULL"))
                    .as("attempts left open").isZero();
            assertThat(SqlCount.of(db, "SELECT count(DISTINCT delivery_key) FROM attempt_journal"))
                    .as("messages the broker delivered: the ones answered 202").isEqualTo(keys.size());
            assertThat(SqlCount.of(db, "SELECT count(*) FROM documents WHERE source = 'it' AND state = 'searchable'"))
                    .isEqualTo(outcomes.values().stream().filter("indexed"::equals).count());
            assertThat(SqlCount.of(db, "SELECT count(*) FROM quarantine WHERE source = 'it' AND disposition = 'open'"))
                    .isEqualTo(outcomes.values().stream().filter("quarantined"::equals).count());
            assertThat(pipeline.depth("ingest")).as("left on the queue").isZero();
        } finally {
            elsewhere.stop(0);
        }
    }

    private static String message(String docId, URI uri) {
        return "{\"source\":\"it\",\"doc_id\":\"" + docId + "\",\"uri\":\"" + uri + "\"}";
    }

    private String published(URI intake, String body) throws Exception {
        HttpResponse<String> answer = post(intake, body);
        assertThat(answer.statusCode()).as("%s", answer.body()).isEqualTo(202);
        return answer.body().strip();
    }

    private HttpResponse<String> post(URI intake, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(intake).timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String key(Map<String, String> keys, String docId) {
        return keys.entrySet().stream().filter(e -> e.getValue().equals(docId)).findFirst().orElseThrow().getKey();
    }
}
