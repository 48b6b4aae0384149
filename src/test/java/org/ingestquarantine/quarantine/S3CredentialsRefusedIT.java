package org.ingestquarantine.quarantine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.ingestquarantine.objectstore.S3ClientSettings;
import org.ingestquarantine.testsupport.S3Server;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Credentials S3 refuses give one line naming the credential settings, at start-up and on every write, and nothing
 * is stored. S3Mock accepts any signature, so this test runs a small real HTTP server on loopback that answers as S3
 * does for keys it does not know or a signature that does not match: HTTP 403, with S3's XML error
 * ({@code InvalidAccessKeyId}, {@code SignatureDoesNotMatch}) on a GET or PUT and no body on a HEAD.
 */
class S3CredentialsRefusedIT {

    @BeforeAll
    static void credentials() {
        S3Server.shared().exportCredentials(); // some keys, which the server below refuses
    }

    @ParameterizedTest
    @ValueSource(strings = {"InvalidAccessKeyId", "SignatureDoesNotMatch"})
    void shouldNameTheCredentialSettingsAndStoreNothing(String code) throws Exception {
        AtomicInteger stored = new AtomicInteger();
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.getRequestBody().readAllBytes();
            if ("PUT".equals(exchange.getRequestMethod())) {
                stored.incrementAndGet();
            }
            if ("HEAD".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(403, -1);
            } else {
                byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>"
                        + "refused</Message><RequestId>1</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/xml");
                exchange.sendResponseHeaders(403, body.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            exchange.close();
        });
        server.start();
        try {
            S3ClientSettings settings = S3PayloadStoreIT.settings(Map.of("s3.endpoint-url",
                    "http://127.0.0.1:" + server.getAddress().getPort()));
            try (S3PayloadStore store = new S3PayloadStore(settings, "payloads", "")) {
                assertThatThrownBy(store::checkBucket).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("refused the credentials").hasMessageContaining("AWS_ACCESS_KEY_ID")
                        .hasMessageNotContaining("\n");
                assertThatThrownBy(() -> store.get("s3://payloads/2c/"
                        + "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"))
                        .isInstanceOf(IOException.class)
                        .hasMessageContaining("refused the credentials").hasMessageContaining(code);
                assertThatThrownBy(() -> store.put(new byte[] {1})).isInstanceOf(IOException.class)
                        .hasMessageContaining("refused the credentials");
                assertThat(store.reachable()).isFalse();
            }
        } finally {
            server.stop(0);
        }
        assertThat(stored).as("uploads the server saw").hasValue(0);
    }
}
