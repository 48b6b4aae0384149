package org.ingestquarantine.boot;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A running Boot application's Actuator, read over HTTP as a platform would.
 *
 * @param base {@code http://127.0.0.1:<port>}, the management port
 */
public record Actuator(URI base) {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /**
     * @param port the management (or server) port
     * @return the Actuator on loopback at that port
     */
    public static Actuator onPort(int port) {
        return new Actuator(URI.create("http://127.0.0.1:" + port));
    }

    /**
     * @param code the HTTP status of {@code /actuator/health}
     * @param body its JSON: {@code status} and {@code components.<name>.status/details}
     */
    public record HealthReport(int code, JsonNode body) {

        /** @return the overall status */
        public String status() {
            return body.path("status").asText();
        }

        /**
         * @param component broker, database, parserPool, quarantineBacklog, ...
         * @return its status, or "" when absent
         */
        public String status(String component) {
            return body.path("components").path(component).path("status").asText();
        }
    }

    /** @return /actuator/health now */
    public HealthReport health() throws Exception {
        HttpResponse<String> r = get("/actuator/health");
        return new HealthReport(r.statusCode(), new ObjectMapper().readTree(r.body()));
    }

    /** @return the URL of /actuator/prometheus */
    public URI prometheus() {
        return base.resolve("/actuator/prometheus");
    }

    private HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
