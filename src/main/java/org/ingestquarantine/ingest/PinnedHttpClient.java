package org.ingestquarantine.ingest;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hc.client5.http.DnsResolver;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.config.TlsConfig;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.config.Http1Config;
import org.apache.hc.core5.http2.HttpVersionPolicy;
import org.apache.hc.core5.util.Timeout;

/**
 * The HTTP client of the {@link HttpConnector}s with the same {@link HttpTimeouts}, one per process, started when
 * the first of them is made (so a first request pays no start-up, and the http and https connectors share its I/O
 * threads, daemons never stopped, as java.net.http's were). It connects only to the address a
 * request's {@link HttpHost} carries (the one its guard checked, {@link HttpTarget}) and resolves no name: its DNS
 * resolver refuses every lookup, so a request without a checked address fails instead of looking the name up again.
 * Every request has a connection of its own, closed after it ({@code Connection: close}): a pooled connection the
 * server closed meanwhile failed the next request (the pipeline's retry would cost a delivery), and none outlives
 * the check of its address. HTTP/1.1 only; no redirects, retries, cookies,
 * authentication or decompression of its own (the connector follows redirects through its guard, the pipeline
 * retries, and the bytes stored are the bytes served); no proxy.
 */
final class PinnedHttpClient {

    /** Refuses every lookup: the address to connect to comes with the request. */
    private static final DnsResolver NO_LOOKUP = new DnsResolver() {
        @Override
        public InetAddress[] resolve(String host) throws UnknownHostException {
            throw new UnknownHostException(host + ": this client connects only to the address its guard checked");
        }

        @Override
        public String resolveCanonicalHostname(String host) throws UnknownHostException {
            return resolve(host)[0].getHostName();
        }
    };

    private static final Map<HttpTimeouts, PinnedHttpClient> SHARED = new ConcurrentHashMap<>();

    private final HttpTimeouts timeouts;
    private final CloseableHttpAsyncClient client;

    private PinnedHttpClient(HttpTimeouts timeouts) {
        this.timeouts = timeouts;
        this.client = build();
        client.start();
    }

    /**
     * @param timeouts the connect timeout, and the backstop behind the connector's own waits
     * @return the started client for them
     */
    static PinnedHttpClient of(HttpTimeouts timeouts) {
        return SHARED.computeIfAbsent(timeouts, PinnedHttpClient::new);
    }

    /** @return the bytes a server may send ahead of a body's reader ({@link TimedBody}) */
    static int window() {
        return Http1Config.DEFAULT.getInitialWindowSize();
    }

    /** @return the started client */
    CloseableHttpAsyncClient client() {
        return client;
    }

    /** @return the host to send a request to: the target's name (Host header, TLS server name) and checked address */
    static HttpHost host(HttpTarget target) {
        return new HttpHost(target.uri().getScheme().toLowerCase(java.util.Locale.ROOT), target.address(),
                HttpTarget.host(target.uri()), target.uri().getPort());
    }

    private CloseableHttpAsyncClient build() {
        // the client's own timeouts are only a backstop behind the connector's (headers: its wait; body: TimedBody)
        Timeout backstop = Timeout.of(timeouts.bodyDeadline().plus(timeouts.idle()));
        return HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setDnsResolver(NO_LOOKUP)
                        .setDefaultConnectionConfig(ConnectionConfig.custom()
                                .setConnectTimeout(Timeout.of(timeouts.connect())).setSocketTimeout(backstop).build())
                        .setDefaultTlsConfig(TlsConfig.custom().setVersionPolicy(HttpVersionPolicy.FORCE_HTTP_1).build())
                        // concurrency is bounded by the consumers and source-requests.max-per-s, not by the pool
                        .setMaxConnTotal(Integer.MAX_VALUE).setMaxConnPerRoute(Integer.MAX_VALUE)
                        .build())
                .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(backstop).build())
                .setConnectionReuseStrategy((request, response, context) -> false)
                .disableRedirectHandling().disableAutomaticRetries().disableCookieManagement().disableAuthCaching()
                .disableContentCompression()
                .build();
    }
}
