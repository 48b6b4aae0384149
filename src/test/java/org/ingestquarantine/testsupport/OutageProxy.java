package org.ingestquarantine.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on a free loopback port to a real server (e.g. {@link S3Server}) that a test can take down and
 * bring back: while down, every open connection is cut and every new one is closed as soon as it is accepted, as a
 * server that went away would. Nothing is faked above TCP.
 */
public final class OutageProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean down;
    /** Connections accepted since the last {@link #reset}, and the ordinals among them to reset. */
    private final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
    private volatile Set<Integer> toReset = Set.of();

    private OutageProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "outage-proxy-" + listener.getLocalPort());
        accept.setDaemon(true);
        accept.start();
    }

    /**
     * @param targetPort the loopback port to forward to
     * @return a running forwarder; close it
     */
    public static OutageProxy to(int targetPort) throws IOException {
        return new OutageProxy(targetPort);
    }

    /** @return the port to connect to instead of the target's */
    public int port() {
        return listener.getLocalPort();
    }

    /** Cuts every connection and refuses new ones until {@link #up()}. */
    public void down() {
        down = true;
        open.forEach(OutageProxy::closeQuietly);
        open.clear();
    }

    /** Forwards again. */
    public void up() {
        down = false;
    }

    /**
     * Resets some of the next connections: the n-th one accepted from now on, for each n given, is closed with a TCP
     * RST (SO_LINGER 0) before a byte is forwarded, as a broker or a load balancer that drops a client during its
     * handshake would; the others are forwarded.
     *
     * @param ordinals which connections, counted from 1 at this call
     */
    public void reset(Integer... ordinals) {
        accepted.set(0);
        toReset = Set.of(ordinals);
    }

    /** @return connections accepted since {@link #reset} */
    public int accepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (down) {
                    closeQuietly(client);
                    continue;
                }
                if (toReset.contains(accepted.incrementAndGet())) {
                    client.setSoLinger(true, 0);
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket();
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
                open.add(client);
                open.add(server);
                pipe(client, server);
                pipe(server, client);
            } catch (IOException e) {
                // listener closed, or the target refused: the client sees its connection end
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // cut
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "outage-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        down();
    }
}
