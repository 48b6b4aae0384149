package org.ingestquarantine.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Ensures the operator server bounds what a client can hold: a header or body that does not arrive within its
 * deadline is answered 408 and its connection closed, one connection over the cap is closed at once, an oversized
 * header or body is refused, and every answer (the server's own refusals too) carries the security headers.
 * A real server on loopback, raw sockets as the clients.
 */
class OperatorHttpServerTest {

    private static final Duration HEADER = Duration.ofMillis(1500);
    private static final Duration BODY = Duration.ofMillis(1200);
    private static final int CAP = 4;
    private static final ApiLimits LIMITS = new ApiLimits(16, HEADER, BODY, CAP, 1024, 1024, 2);

    private final OperatorHttpServer server = start();
    private final List<Socket> sockets = new ArrayList<>();

    private static OperatorHttpServer start() {
        try {
            return OperatorHttpServer.start(new InetSocketAddress("127.0.0.1", 0), LIMITS,
                    ask -> HttpAnswer.text(200, "ok " + ask.method() + " " + ask.rawPath() + " " + ask.body().length));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        server.close();
    }

    @Test
    void shouldAnswer408AndCloseWhenTheHeaderIsLate() throws Exception {
        Socket s = open();
        send(s, "GET / HTTP/1.1\r\nHost: x\r\n"); // never the blank line
        long t0 = System.nanoTime();
        String answer = readToEnd(s);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(answer).startsWith("HTTP/1.1 408 ").contains("header did not arrive within 1500 ms")
                .contains("Content-Security-Policy: " + SecurityHeaders.POLICY);
        assertThat(ms).as("closed at the deadline").isBetween(1000L, 6000L);
    }

    @Test
    void shouldCountTheHeaderDeadlineFromTheOpeningHoweverSlowlyBytesCome() throws Exception {
        Socket s = open();
        long t0 = System.nanoTime();
        String request = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n";
        for (char c : request.toCharArray()) { // a byte every 100 ms: each far within any idle timeout
            try {
                send(s, String.valueOf(c));
            } catch (IOException closed) {
                break;
            }
            Thread.sleep(100);
            if (System.nanoTime() - t0 > 2 * HEADER.toNanos()) {
                break;
            }
        }
        assertThat(readToEnd(s)).startsWith("HTTP/1.1 408 ");
    }

    @Test
    void shouldAnswer408WhenTheBodyIsLate() throws Exception {
        Socket s = open();
        send(s, "POST /api/dispose HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12");
        assertThat(readToEnd(s)).startsWith("HTTP/1.1 408 ").contains("body did not arrive within 1200 ms");
    }

    @Test
    void shouldKeepAConnectionAliveAndGiveTheNextRequestItsOwnDeadline() throws Exception {
        Socket s = open();
        send(s, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(readAnswer(s)).startsWith("HTTP/1.1 200 ").endsWith("ok GET /a 0\n");
        Thread.sleep(HEADER.toMillis() / 5);
        send(s, "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
        assertThat(readAnswer(s)).startsWith("HTTP/1.1 200 ").endsWith("ok POST /b 3\n");
        assertThat(readToEnd(s)).as("idle after its answer: closed at the header deadline").startsWith("HTTP/1.1 408 ");
    }

    @Test
    void shouldCloseAConnectionOverTheCapAtOnce() throws Exception {
        for (int i = 0; i < CAP; i++) {
            open();
        }
        Socket over = open();

        assertThat(over.getInputStream().read()).as("closed before its header deadline").isEqualTo(-1);
        sockets.remove(0).close();
        // the server frees the place once it sees the close; until then a new connection is still over the cap
        String answer = "";
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (answer.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            Socket again = open();
            try {
                send(again, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                answer = readToEnd(again);
            } catch (IOException closedOverTheCap) {
                answer = "";
            }
            sockets.remove(again);
            again.close();
        }
        assertThat(answer).as("a place freed by a close is given to the next connection").startsWith("HTTP/1.1 200 ");
    }

    @Test
    void shouldRefuseAnOversizedHeaderOrBodyWithTheSecurityHeaders() throws Exception {
        Socket big = open();
        send(big, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(2000) + "\r\n\r\n");
        assertThat(readToEnd(big)).startsWith("HTTP/1.1 431 ").contains("Content-Security-Policy: " + SecurityHeaders.POLICY);
        Socket body = open();
        send(body, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n");
        assertThat(readToEnd(body)).startsWith("HTTP/1.1 413 ").contains("Content-Security-Policy: " + SecurityHeaders.POLICY);
        Socket garbage = open();
        send(garbage, "\u0001\u0002 nonsense\r\n\r\n");
        assertThat(readToEnd(garbage)).startsWith("HTTP/1.1 400 ").contains("Content-Security-Policy: " + SecurityHeaders.POLICY);
    }

    @Test
    void shouldPutTheSecurityHeadersOnEveryAnswer() throws Exception {
        Socket s = open();
        send(s, "HEAD /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        String answer = readToEnd(s);
        for (Map.Entry<String, String> h : Map.of("Content-Security-Policy", SecurityHeaders.POLICY,
                "X-Content-Type-Options", "nosniff", "Referrer-Policy", "no-referrer", "Cache-Control", "no-store")
                .entrySet()) {
            assertThat(answer).contains(h.getKey() + ": " + h.getValue());
        }
        assertThat(answer).endsWith("\r\n\r\n").as("HEAD: no body").contains("content-length: 13");
    }

    private Socket open() throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(10_000);
        sockets.add(s);
        return s;
    }

    private static void send(Socket s, String text) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static String readToEnd(Socket s) throws IOException {
        return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    /** Reads one answer: its header, then as many body bytes as its content-length says. */
    private static String readAnswer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: (\\d+)").matcher(head);
        int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
        return head + new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }
}
