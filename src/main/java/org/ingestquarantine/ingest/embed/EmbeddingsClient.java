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
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.failure.DownstreamContractException;
import org.ingestquarantine.failure.ServiceUnreachableException;
import org.ingestquarantine.failure.ShutdownException;
import org.ingestquarantine.failure.TransientException;
import org.ingestquarantine.pipeline.LogSafe;

/**
 * One {@code POST <embed.openai.url>/embeddings} per call (JDK {@link HttpClient}), its answer classified:
 * HTTP 408, 429 and 5xx, a refused connection, a timeout or a broken connection are {@link TransientException}s
 * (reasons {@code embed_http_<code>}, {@code embed_connection_refused}, {@code embed_timeout}, {@code embed_io}),
 * carrying the {@code Retry-After} the service sent; any other status, and a response that breaks the
 * embeddings contract ({@link EmbeddingsJson}), is a {@link DownstreamContractException}. The key is sent as
 * {@code Authorization: Bearer} and appears in no log line or message; a response body is quoted only
 * bounded and escaped ({@link LogSafe}).
 *
 * <p>A transient failure is a {@link ServiceUnreachableException}, which holds the consumer
 * (delivery/ConsumerCircuitBreaker, probing with {@link #answers}), when the service refuses the connection or
 * does not accept one within {@code embed.openai.connect-timeout-ms}, and when it is the
 * {@code embed.openai.outage-after-failures}-th transient failure (408, 429, 5xx, a request timeout, a broken
 * connection) in a row, across all documents, with no answer between them. The breaker logs the outage, naming
 * {@value OpenAiSettings#URL}. Thread-safe.
 */
final class EmbeddingsClient {

    private final OpenAiSettings settings;
    private final String apiKey;
    private final HttpClient http;
    /** The service's transient failures since its last answer (any answer other than a transient failure). */
    private final AtomicInteger failuresInARow = new AtomicInteger();

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
     * @throws TransientException if the service is busy or slow; a {@link ServiceUnreachableException} if it is down
     * @throws DownstreamContractException if it refuses the request or answers outside the contract
     * @throws ShutdownException if the thread is interrupted (this process is stopping)
     */
    List<float[]> embed(List<String> inputs) {
        HttpResponse<byte[]> response;
        long started = System.nanoTime();
        try {
            response = send(inputs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ShutdownException("the request to the embedding service was cut short: this process is"
                    + " stopping; the message goes back to the queue", null);
        } catch (IOException e) {
            throw transportFailure(e, Duration.ofNanos(System.nanoTime() - started));
        }
        int status = response.statusCode();
        if (status == 408 || status == 429 || status >= 500) {
            Duration retryAfter = RetryAfter.parse(response.headers().firstValue("Retry-After").orElse(null),
                    Instant.now()).orElse(null);
            throw failure("embed_http_" + status, "answered HTTP " + status + excerpt(response.body())
                    + "; retrying later" + (retryAfter == null ? "" : " (Retry-After " + retryAfter.toSeconds() + " s)"),
                    null, retryAfter, false);
        }
        failuresInARow.set(0);
        if (status / 100 == 2) {
            return EmbeddingsJson.vectors(response.body(), inputs.size(), settings.dimensions());
        }
        String said = service() + " answered HTTP " + status + excerpt(response.body());
        throw new DownstreamContractException("embed_http_" + status, said + "; check embed.openai.model"
                + (status == 401 || status == 403 ? " and the key in $" + settings.apiKeyEnv()
                        + " (embed.openai.api-key-env)" : ""));
    }

    /**
     * The probe of a consumer held while the service is unreachable: one embeddings request with one fixed input
     * (never document text), within the same timeouts.
     *
     * @return whether the service answered it with vectors (HTTP 2xx); then the failures in a row start again at 0
     */
    boolean answers() {
        try {
            if (send(List.of("probe")).statusCode() / 100 == 2) {
                failuresInARow.set(0);
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            // not answering: the breaker probes again
        }
        return false;
    }

    private HttpResponse<byte[]> send(List<String> inputs) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(settings.endpoint())
                .timeout(settings.timeouts().request())
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(EmbeddingsJson.request(settings.model(), inputs)));
        if (apiKey != null) {
            request.header("Authorization", "Bearer " + apiKey);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /**
     * @param waited how long the request had run: the JDK's client reports its request timeout as a connect timeout
     *     when it fires before the connection is made, so a connect timeout sooner than
     *     {@code embed.openai.connect-timeout-ms} is the request timeout's
     */
    private TransientException transportFailure(IOException e, Duration waited) {
        String reason = "embed_io";
        String what = "failed (" + e.getClass().getSimpleName() + ")";
        boolean unreachable = false;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpConnectTimeoutException && waited.compareTo(settings.timeouts().connect()) >= 0) {
                reason = "embed_timeout";
                what = "did not accept a connection within embed.openai.connect-timeout-ms";
                unreachable = true;
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
                unreachable = true;
                break;
            }
        }
        return failure(reason, what + "; retrying later", e, null, unreachable);
    }

    /**
     * @param unreachable whether the failure itself says the service is down (no connection)
     * @return a {@link ServiceUnreachableException} when the service is unreachable or has failed
     *     {@code embed.openai.outage-after-failures} times in a row, else a plain {@link TransientException}
     */
    private TransientException failure(String reason, String what, Throwable cause, Duration retryAfter,
                                       boolean unreachable) {
        int inARow = failuresInARow.incrementAndGet();
        String message = service() + " " + what;
        if (unreachable || inARow >= settings.outageAfterFailures()) {
            return new ServiceUnreachableException(OpenAiSettings.URL, service(), reason,
                    message + (unreachable ? "" : " (" + inARow + " failures in a row, embed.openai.outage-after-failures)"),
                    cause, retryAfter);
        }
        return new TransientException(reason, message, cause, retryAfter);
    }

    /** @return {@code the embedding service at <url> (embed.openai.url)} */
    private String service() {
        return "the embedding service at " + settings.shownUrl() + " (" + OpenAiSettings.URL + ")";
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
