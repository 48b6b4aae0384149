package org.ingestquarantine.ingest.embed;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.LogSafe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code POST <embed.openai.url>/embeddings} per call (JDK {@link HttpClient}), its answer classified:
 * HTTP 408, 429 and 5xx, a refused connection, a timeout or a broken connection are {@link TransientException}s
 * (reasons {@code embed_http_<code>}, {@code embed_connection_refused}, {@code embed_timeout}, {@code embed_io}),
 * carrying the {@code Retry-After} the service sent; any other status, and a response that breaks the
 * embeddings contract ({@link EmbeddingsJson}), is a {@link DownstreamContractException}. The key is sent as
 * {@code Authorization: Bearer} and appears in no log line or message; a response body is quoted only
 * bounded and escaped ({@link LogSafe}). The service becoming unreachable, and reachable again, is logged once
 * each, naming {@value OpenAiSettings#URL}. Thread-safe.
 */
final class EmbeddingsClient {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddingsClient.class);

    private final OpenAiSettings settings;
    private final String apiKey;
    private final HttpClient http;
    private final AtomicBoolean unreachable = new AtomicBoolean();

    /**
     * @param settings where the service is
     * @param apiKey the key to send, or {@code null} for none
     */
    EmbeddingsClient(OpenAiSettings settings, String apiKey) {
        this.settings = settings;
        this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.trim();
        this.http = HttpClient.newBuilder().connectTimeout(settings.timeouts().connect())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * @param inputs texts, at most {@code embed.openai.batch-chunks}
     * @return one vector per input, in order
     * @throws TransientException if the service is down, busy or slow
     * @throws DownstreamContractException if it refuses the request or answers outside the contract
     * @throws ShutdownException if the thread is interrupted (this process is stopping)
     */
    List<float[]> embed(List<String> inputs) {
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.endpoint())
                .timeout(settings.timeouts().request())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(EmbeddingsJson.request(settings.model(), inputs)));
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShutdownException("the request to the embedding service was cut short: this process is"
                    + " stopping; the message goes back to the queue", null);
        } catch (IOException e) {
            throw transportFailure(e);
        }
        if (unreachable.compareAndSet(true, false)) {
            LOG.info("the embedding service at {} ({}) answers again", settings.shownUrl(), OpenAiSettings.URL);
        }
        int status = response.statusCode();
        if (status / 100 == 2) {
            return EmbeddingsJson.vectors(response.body(), inputs.size(), settings.dimensions());
        }
        String said = "the embedding service at " + settings.shownUrl() + " (" + OpenAiSettings.URL + ") answered HTTP "
                + status + excerpt(response.body());
        if (status == 408 || status == 429 || status >= 500) {
            Duration retryAfter = RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null),
                    Instant.now()).orElse(null);
            throw new TransientException("embed_http_" + status, said + "; retrying later"
                    + (retryAfter == null ? "" : " (Retry-After " + retryAfter.toSeconds() + " s)"), null, retryAfter);
        }
        throw new DownstreamContractException("embed_http_" + status, said + "; check embed.openai.model"
                + (status == 401 || status == 403 ? " and the key in $" + settings.apiKeyEnv()
                        + " (embed.openai.api-key-env)" : ""));
    }

    private TransientException transportFailure(IOException e) {
        String reason = "embed_io";
        String what = "failed (" + e.getClass().getSimpleName() + ")";
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                reason = "embed_timeout";
                what = "did not accept a connection within embed.openai.connect-timeout-ms";
                break;
            }
            if (t instanceof HttpTimeoutException) {
                reason = "embed_timeout";
                what = "did not answer within embed.openai.request-timeout-ms";
                break;
            }
            if (t instanceof ConnectException) {
                reason = "embed_connection_refused";
                what = "refused the connection";
                break;
            }
        }
        String failed = "the embedding service at " + settings.shownUrl() + " (" + OpenAiSettings.URL + ") " + what;
        if (unreachable.compareAndSet(false, true)) {
            LOG.warn("{}; documents are released for redelivery within their transient budget (failure.transient.*)",
                    failed);
        }
        return new TransientException(reason, failed + "; retrying later", e);
    }

    /** @return {@code ": <the body, bounded and escaped>"}, or nothing for an empty body */
    private static String excerpt(byte[] body) {
        if (body == null || body.length == 0) {
            return "";
        }
        int shown = Math.min(body.length, LogSafe.MAX_CHARS * 4);
        String text = new String(body, 0, shown, StandardCharsets.UTF_8);
        return ": " + LogSafe.identity(text) + (shown < body.length ? "…(" + body.length + " bytes)" : "");
    }
}
