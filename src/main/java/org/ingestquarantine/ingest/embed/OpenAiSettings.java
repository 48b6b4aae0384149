package org.ingestquarantine.ingest.embed;

import java.net.URI;
import java.time.Duration;
import org.ingestquarantine.pipeline.Settings;

/**
 * Where and how to reach an OpenAI-compatible embedding service ({@code embed.provider = openai}); every value
 * from its {@code embed.openai.*} property, whose defaults are in application.properties. The API key itself is
 * not here: only the name of the environment variable that holds it, read when the client is made.
 *
 * @param baseUrl the API's base URL ({@code embed.openai.url}, as OpenAI's clients take it: requests go to
 *     {@code <url>/embeddings}), http or https
 * @param model the model the service is asked for ({@code embed.openai.model})
 * @param dimensions the width every vector must have ({@code embed.openai.dimensions}), ≥ 1
 * @param batchChunks most inputs per request ({@code embed.openai.batch-chunks}), ≥ 1
 * @param timeouts connect and whole-request bounds ({@code embed.openai.connect-timeout-ms},
 *     {@code embed.openai.request-timeout-ms})
 * @param apiKeyEnv the environment variable holding the key sent as {@code Authorization: Bearer}
 *     ({@code embed.openai.api-key-env}); unset or empty: no Authorization header
 * @param outageAfterFailures transient failures of the service in a row (no answer between them) from which it is
 *     taken to be down and holds the consumer ({@code embed.openai.outage-after-failures}), ≥ 1
 */
public record OpenAiSettings(URI baseUrl, String model, int dimensions, int batchChunks, Timeouts timeouts,
                             String apiKeyEnv, int outageAfterFailures) {

    /** The property naming the service's base URL. */
    public static final String URL = "embed.openai.url";

    /**
     * @param connect most time to open a connection, positive
     * @param request most time from sending a request to the end of its response, positive
     */
    public record Timeouts(Duration connect, Duration request) {

        public Timeouts {
            if (connect.isNegative() || connect.isZero() || request.isNegative() || request.isZero()) {
                throw new IllegalArgumentException("embed.openai.connect-timeout-ms and embed.openai.request-timeout-ms"
                        + " must be positive, were " + connect.toMillis() + " and " + request.toMillis());
            }
        }
    }

    public OpenAiSettings {
        String scheme = baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || baseUrl.getHost() == null) {
            throw new IllegalArgumentException(URL + " must be an http(s) URL such as http://127.0.0.1:8471/v1, was "
                    + org.ingestquarantine.pipeline.LogSafe.identity(redacted(baseUrl)));
        }
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("embed.openai.model must name the service's model");
        }
        if (dimensions < 1 || batchChunks < 1) {
            throw new IllegalArgumentException("embed.openai.dimensions and embed.openai.batch-chunks must be >= 1, were "
                    + dimensions + " and " + batchChunks);
        }
        if (outageAfterFailures < 1) {
            throw new IllegalArgumentException("embed.openai.outage-after-failures must be >= 1, was "
                    + outageAfterFailures);
        }
    }

    /**
     * @param settings the process's properties
     * @return the {@code embed.openai.*} settings
     * @throws IllegalArgumentException if one is missing or out of range, naming it
     */
    public static OpenAiSettings from(Settings settings) {
        URI url;
        try {
            url = URI.create(settings.required(URL).trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(URL + " is not a URL: " + e.getMessage(), e);
        }
        return new OpenAiSettings(url, settings.required("embed.openai.model"),
                (int) settings.requiredNumber("embed.openai.dimensions"),
                (int) settings.requiredNumber("embed.openai.batch-chunks"),
                new Timeouts(settings.requiredMillis("embed.openai.connect-timeout-ms"),
                        settings.requiredMillis("embed.openai.request-timeout-ms")),
                settings.string("embed.openai.api-key-env", ""),
                (int) settings.requiredNumber("embed.openai.outage-after-failures"));
    }

    /** @return the endpoint requests are posted to: {@code <url>/embeddings} */
    public URI endpoint() {
        String base = baseUrl.toString();
        return URI.create(base.endsWith("/") ? base + "embeddings" : base + "/embeddings");
    }

    /** @return the base URL as a log line may show it: scheme, host, port and path, no user info or query */
    public String shownUrl() {
        return org.ingestquarantine.pipeline.LogSafe.identity(redacted(baseUrl));
    }

    private static String redacted(URI uri) {
        if (uri.getScheme() == null || uri.getHost() == null) {
            return uri.getScheme() == null ? "(no scheme)" : uri.getScheme() + ":(no host)";
        }
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }
}
