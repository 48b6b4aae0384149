package org.ingestquarantine.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A deliberately misbehaving HTTP server on 127.0.0.1: a raw {@link ServerSocket} whose every connection is
 * handed, after its request head was read, to a {@link Handler} that writes whatever bytes it likes.
 */
public final class RawHttpServer implements AutoCloseable {

    /** Writes a response (or not) for one request. */
    @FunctionalInterface
    public interface Handler {
        void handle(String requestHead, Socket socket, OutputStream out) throws Exception;
    }

    private final ServerSocket server;
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread acceptor;

    public RawHttpServer(Handler handler) throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    connections.incrementAndGet();
                    Thread t = new Thread(() -> serve(handler, s), "raw-http-conn");
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }, "raw-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    private static void serve(Handler handler, Socket s) {
        try (s) {
            String head = readHead(s.getInputStream());
            handler.handle(head, s, s.getOutputStream());
            s.getOutputStream().flush();
        } catch (Exception ignored) {
            // the client gave up or the handler reset the connection: both are the point of these tests
        }
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            b.append((char) c);
            if (b.length() >= 4 && b.substring(b.length() - 4).equals("\r\n\r\n")) {
                break;
            }
        }
        return b.toString();
    }

    public static void write(OutputStream out, String text) throws IOException {
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    public int port() {
        return server.getLocalPort();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    /** @return connections accepted so far */
    public int connections() {
        return connections.get();
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
