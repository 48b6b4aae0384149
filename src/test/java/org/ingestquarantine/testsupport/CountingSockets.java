package org.ingestquarantine.testsupport;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * A PgJDBC socket factory ({@code socketFactory} connection property, {@link #jdbcUrl}) whose sockets count the
 * client's sends: every flush of what the driver buffered is one message batch to the server, and the driver waits
 * for the answer before the next, so the count is the number of protocol round trips, including those the driver
 * adds by itself (a statement described, a Sync forced before an execution) that no JDBC-level count sees.
 */
public final class CountingSockets extends SocketFactory {

    private static final java.util.Map<Long, AtomicLong> SENDS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * @param thread the thread that sent (a pool's own threads open connections and check them too)
     * @return its sends so far, over every socket this factory made
     */
    public static long sendsBy(Thread thread) {
        AtomicLong n = SENDS.get(thread.getId());
        return n == null ? 0 : n.get();
    }

    /**
     * @param jdbcUrl a PostgreSQL JDBC URL without parameters
     * @return the URL with this factory as its socket factory
     */
    public static String jdbcUrl(String jdbcUrl) {
        return jdbcUrl + "?socketFactory=" + CountingSockets.class.getName();
    }

    @Override
    public Socket createSocket() {
        return new Socket() {
            private OutputStream out;

            @Override
            public synchronized OutputStream getOutputStream() throws IOException {
                if (out == null) {
                    out = new FilterOutputStream(super.getOutputStream()) {
                        @Override
                        public void write(byte[] b, int off, int len) throws IOException {
                            this.out.write(b, off, len);
                        }

                        @Override
                        public void flush() throws IOException {
                            SENDS.computeIfAbsent(Thread.currentThread().getId(), t -> new AtomicLong()).incrementAndGet();
                            super.flush();
                        }
                    };
                }
                return out;
            }
        };
    }

    @Override
    public Socket createSocket(String host, int port) {
        throw new UnsupportedOperationException("PgJDBC connects the socket from createSocket()");
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) {
        throw new UnsupportedOperationException("PgJDBC connects the socket from createSocket()");
    }

    @Override
    public Socket createSocket(InetAddress host, int port) {
        throw new UnsupportedOperationException("PgJDBC connects the socket from createSocket()");
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) {
        throw new UnsupportedOperationException("PgJDBC connects the socket from createSocket()");
    }
}
